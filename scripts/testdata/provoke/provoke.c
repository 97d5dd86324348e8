// SPDX-License-Identifier: GPL-2.0-only
/*
 * Provokes one report of each checker of vdxg's debug kernel, for the
 * sample logs of scripts/vm-log-selftest.sh (see scripts/testdata/
 * kernel-logs/README). Never loaded by the tests.
 *
 *   insmod provoke.ko what=lockdep,odebug,sleep,leak,kasan
 *   insmod provoke.ko what=rcu
 *
 * A lockdep or RCU-lockdep report turns lockdep off, and a KASAN report
 * taints the kernel, which turns it off too: lockdep and rcu go in boots
 * of their own or first, kasan last.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>

static char *what = "";
module_param(what, charp, 0444);

static DEFINE_MUTEX(provoke_a);
static DEFINE_MUTEX(provoke_b);
static DEFINE_SPINLOCK(provoke_lock);
static int __rcu *provoke_rcu_ptr;
static void *provoke_keep;

struct provoke_timer {
	struct timer_list timer;
};

static void provoke_timer_fn(struct timer_list *t)
{
}

static void provoke_lockdep(void)
{
	mutex_lock(&provoke_a);
	mutex_lock(&provoke_b);
	mutex_unlock(&provoke_b);
	mutex_unlock(&provoke_a);
	mutex_lock(&provoke_b);
	mutex_lock(&provoke_a);
	mutex_unlock(&provoke_a);
	mutex_unlock(&provoke_b);
}

static void provoke_odebug(void)
{
	struct provoke_timer *p = kzalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return;
	timer_setup(&p->timer, provoke_timer_fn, 0);
	mod_timer(&p->timer, jiffies + 60 * HZ);
	/* ODEBUG: free active; its fixup deletes the timer. */
	kfree(p);
}

static void provoke_sleep(void)
{
	spin_lock(&provoke_lock);
	might_sleep();
	spin_unlock(&provoke_lock);
}

static void provoke_leak(void)
{
	void *p = kmalloc(128, GFP_KERNEL);

	if (p)
		memset(p, 0x5a, 128);
	/* Forgotten: kmemleak finds no reference to it. */
	provoke_keep = NULL;
}

static void provoke_kasan(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return;
	kfree(p);
	provoke_keep = (void *)(unsigned long)READ_ONCE(p[8]);
}

static void provoke_rcu(void)
{
	int *p = rcu_dereference(provoke_rcu_ptr);	/* no rcu_read_lock() */

	provoke_keep = p;
}

static int __init provoke_init(void)
{
	if (strstr(what, "lockdep"))
		provoke_lockdep();
	if (strstr(what, "rcu"))
		provoke_rcu();
	if (strstr(what, "odebug"))
		provoke_odebug();
	if (strstr(what, "sleep"))
		provoke_sleep();
	if (strstr(what, "leak"))
		provoke_leak();
	if (strstr(what, "kasan"))
		provoke_kasan();
	return 0;
}

static void __exit provoke_exit(void)
{
}

module_init(provoke_init);
module_exit(provoke_exit);
MODULE_DESCRIPTION("Provoke each debug-kernel checker once (vdxg test data)");
MODULE_LICENSE("GPL");

/*
 * vdxg: the engines' registers and rings: fetch and completion, the
 * bottom half and its budget, the WAIT timer, engine migration
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitops.h"
#include "qemu/host-utils.h"
#include "qemu/main-loop.h"
#include "hw/pci/pcie_sriov.h"
#include "qemu/timer.h"
#include "migration/vmstate.h"
#include "qapi/visitor.h"
#include "system/runstate.h"
#include "vdxg_int.h"
#include "hw/display/trace.h"

/* How often a WAIT looks at its address again */
#define VDXG_WAIT_POLL_NS       (100 * SCALE_US)

/* Rings: the machinery both engines share */

/* Run (or continue) the operation at the engine's buffer offset. */
static VdxgRun vdxg_engine_op(VdxgCore *s, VdxgEngine *e, int64_t *budget,
                              uint32_t *opcode, VdxgErr *err)
{
    if (e->index == VDXG_ENGINE_RENDER) {
        return vdxg_rd_cmd(s, e, budget, opcode, err);
    }
    return vdxg_pg_op(s, e, budget, opcode, err);
}

/* Check the ring programming before the engine uses it. */
static bool vdxg_ring_check(VdxgCore *s, VdxgEngine *e, VdxgErr *err)
{
    if ((e->ring_base & VDXG_PAGE_MASK) || !is_power_of_2(e->ring_size) ||
        e->ring_size < VDXG_RING_SIZE_MIN ||
        e->ring_size > VDXG_RING_SIZE_MAX ||
        !vdxg_gpu_range_ok(s, e->ring_base, e->ring_size) ||
        e->tail % VDXG_RING_ENTRY_SIZE || e->tail >= e->ring_size ||
        e->head >= e->ring_size ||
        (e->fence_addr & 7) ||
        (e->fence_addr && !vdxg_gpu_range_ok(s, e->fence_addr, 8))) {
        return vdxg_set_err(err, VDXG_FAULT_RING, e->ring_base);
    }
    return true;
}

/* Forget the operation in progress and the RENDER state of the entry. */
static void vdxg_engine_drop_entry(VdxgEngine *e)
{
    e->busy = false;
    e->buf_off = 0;
    e->op_progress = 0;
    e->virt = false;
    e->as = 0;
    e->state_area = 0;
    vdxg_rd_snap_free(e);
    memset(&e->rd, 0, sizeof(e->rd));
    vdxg_3d_reset(e);
    if (e->wait_timer) {
        timer_del(e->wait_timer);
    }
}

/* Halt @e on a fault. The entry in progress is abandoned. */
static void vdxg_engine_fault(VdxgCore *s, VdxgEngine *e, const VdxgErr *err,
                              uint32_t opcode, uint32_t context)
{
    bool latch = !(s->fault_status & VDXG_FAULT_STATUS_VALID);

    e->halted = true;
    vdxg_engine_drop_entry(e);
    vdxg_fault(s, e->index, err->reason, opcode, err->addr, context);
    if (latch && err->vm) {
        s->mmu.fault_vm = err->as;
        s->mmu.fault_access = err->access;
    }
}

/*
 * Fetch the ring entry at HEAD. A NOP becomes an empty buffer to run, so
 * that every entry completes the same way.
 */
static bool vdxg_engine_fetch(VdxgCore *s, VdxgEngine *e, int64_t *budget,
                              uint32_t *opcode, uint32_t *context,
                              VdxgErr *err)
{
    uint8_t buf[VDXG_RING_ENTRY_SIZE];
    uint32_t dw[VDXG_RING_ENTRY_SIZE / 4];
    uint64_t entry_addr, addr;
    VdxgMmuXlate x;
    unsigned int i;
    bool virt;

    *opcode = VDXG_FAULT_OPCODE_RING;
    *context = 0;
    *budget -= VDXG_COST_ENTRY;
    if (!vdxg_ring_check(s, e, err)) {
        return false;
    }
    entry_addr = e->ring_base + e->head;
    if (!vdxg_gpu_rw(s, entry_addr, buf, sizeof(buf), false, err)) {
        return false;
    }
    for (i = 0; i < ARRAY_SIZE(dw); i++) {
        dw[i] = ldl_le_p(buf + i * 4);
    }
    addr = vdxg_dw64(dw, VDXG_RING_DW_ADDR_LO);
    *opcode = VDXG_FAULT_OPCODE_RING | (dw[VDXG_RING_DW_CMD] & 0xffff);
    *context = dw[VDXG_RING_DW_CONTEXT];
    trace_vdxg_engine_entry(e->index, e->head, dw[VDXG_RING_DW_CMD],
                            dw[VDXG_RING_DW_LENGTH], addr,
                            vdxg_dw64(dw, VDXG_RING_DW_SEQNO_LO),
                            dw[VDXG_RING_DW_CONTEXT]);

    /* EXEC_VIRTUAL: RENDER only, bits 31:16 zero; its dword 7 is used */
    virt = e->index == VDXG_ENGINE_RENDER &&
           (s->caps & VDXG_CAP_GPU_MMU) &&
           VDXG_RING_CMD_OP(dw[VDXG_RING_DW_CMD]) ==
           VDXG_RING_CMD_EXEC_VIRTUAL &&
           !(dw[VDXG_RING_DW_CMD] >> 16);
    if (!virt && dw[VDXG_RING_DW_RSVD]) {
        return vdxg_set_err(err, VDXG_FAULT_RING, entry_addr);
    }
    switch (virt ? VDXG_RING_CMD_EXEC_VIRTUAL : dw[VDXG_RING_DW_CMD]) {
    case VDXG_RING_CMD_NOP:
        e->buf_len = 0;
        e->buf_addr = 0;
        break;
    case VDXG_RING_CMD_EXEC:
    case VDXG_RING_CMD_EXEC_VIRTUAL:
        if (!virt && dw[VDXG_RING_DW_CMD] != VDXG_RING_CMD_EXEC) {
            /* EXEC_VIRTUAL of address space 0 where there is none */
            return vdxg_set_err(err, VDXG_FAULT_OPCODE, entry_addr);
        }
        e->buf_len = dw[VDXG_RING_DW_LENGTH];
        e->buf_addr = addr;
        if (!e->buf_len || e->buf_len % 4 ||
            e->buf_len > VDXG_RING_LENGTH_MAX) {
            return vdxg_set_err(err, VDXG_FAULT_LENGTH, entry_addr);
        }
        if (!virt && !vdxg_gpu_range_ok(s, addr, e->buf_len)) {
            return vdxg_set_err(err, VDXG_FAULT_ADDRESS, addr);
        }
        break;
    default:
        return vdxg_set_err(err, VDXG_FAULT_OPCODE, entry_addr);
    }
    /* Each entry starts with no surface bound. */
    vdxg_engine_drop_entry(e);
    if (virt) {
        /*
         * The address space must be usable and the buffer's first page
         * fetchable: else the fault a walk gives, at the buffer's address.
         * Then the slots come from the state area, if there is one.
         */
        e->virt = true;
        e->as = VDXG_RING_CMD_AS(dw[VDXG_RING_DW_CMD]);
        e->state_area = (uint64_t)dw[VDXG_RING_DW_STATE] <<
                        VDXG_GPU_PAGE_SHIFT;
        *budget -= VDXG_COST_XLATE + (e->state_area ? VDXG_COST_STATE : 0);
        if (!vdxg_vm_xlate(s, e, e->as, addr, VDXG_ACCESS_FETCH, &x, err) ||
            (e->state_area && !vdxg_rd_state_load(s, e, err))) {
            return false;
        }
    }
    e->progress = 0;
    e->busy = true;
    e->cmd = dw[VDXG_RING_DW_CMD];
    e->seqno = vdxg_dw64(dw, VDXG_RING_DW_SEQNO_LO);
    e->context = dw[VDXG_RING_DW_CONTEXT];
    return true;
}

/* The entry in progress is done: write its fence back, then signal. */
static bool vdxg_engine_complete(VdxgCore *s, VdxgEngine *e, VdxgErr *err)
{
    uint32_t gen = s->reset_gen;
    uint8_t buf[8];

    /* A virtual-mode context's slots go back to its state area first. */
    if (e->virt && e->state_area && !vdxg_rd_state_store(s, e, err)) {
        return false;
    }
    if (e->fence_addr) {
        stq_le_p(buf, e->seqno);
        if (!vdxg_gpu_rw(s, e->fence_addr, buf, sizeof(buf), true, err) ||
            s->reset_gen != gen) {
            return false;
        }
    }
    e->fence_value = e->seqno;
    e->head = (e->head + VDXG_RING_ENTRY_SIZE) & (e->ring_size - 1);
    vdxg_engine_drop_entry(e);
    trace_vdxg_engine_done(e->index, e->seqno, e->head);
    vdxg_irq_raise(s, e->index == VDXG_ENGINE_RENDER ?
                      VDXG_INT_RENDER_FENCE : VDXG_INT_PAGING_FENCE);
    return true;
}

static bool vdxg_engine_runnable(VdxgEngine *e)
{
    return (e->ctrl & VDXG_ENG_CTRL_ENABLE) && !e->halted &&
           runstate_is_running();
}

/*
 * Up to @q bytes of budget for @e: all of them, unless a test holds the
 * engine after some more work (x-pg-hold-after, x-rd-hold-after).
 */
static int64_t vdxg_engine_grant(VdxgEngine *e, int64_t q)
{
    if (e->hold) {
        q = MIN(q, e->hold_left);
        e->hold_left -= q;
    }
    return q;
}

/*
 * Run @e in a later pass of the PF's scheduler (vdxg_sched_bh), which
 * runs the engines of the PF and of its VFs.
 */
static void vdxg_engine_schedule(VdxgEngine *e)
{
    e->sched = true;
    qemu_bh_schedule(e->s->pf->sched_bh);
}

/*
 * Run the engines with work again: at the end of the pass when in one
 * (vdxg_sched_bh()); at once, or after a gap once the passes since the
 * last gap have held the main loop for VDXG_PASS_BUSY_NS.
 */
static void vdxg_sched_later(VdxgState *pf)
{
    if (pf->pass_deadline) {
        pf->sched_more = true;
    } else if (pf->busy_ns < VDXG_PASS_BUSY_NS) {
        qemu_bh_schedule(pf->sched_bh);
    } else {
        pf->busy_ns = 0;
        pf->pass_gaps++;
        timer_mod_ns(pf->sched_timer, qemu_clock_get_ns(QEMU_CLOCK_REALTIME) +
                     VDXG_PASS_GAP_NS);
    }
}

/* Out of budget: run again from the main loop, unless a test holds @e. */
static void vdxg_engine_resched(VdxgEngine *e)
{
    if (e->hold && !e->hold_left) {
        trace_vdxg_engine_held(e->index, e->head, e->buf_off,
                               e->op_progress);
        return;
    }
    e->sched = true;
    vdxg_sched_later(e->s->pf);
}

/*
 * Charge the per-access work the last step did besides what it charged
 * itself (VdxgCore.access_cost: a VF's isolation checks and backing
 * ranges, translations of its bus addresses) to the run's budget.
 */
static void vdxg_engine_charge(VdxgCore *s, int64_t *budget)
{
    *budget -= s->access_cost;
    s->access_cost = 0;
}

/*
 * Out of budget: charge what the last operation overspent to the run's
 * cap, then hand out another quantum if the cap has some left and the
 * run has not used up its host time (@deadline, get_clock()).
 */
static bool vdxg_engine_refill(VdxgEngine *e, int64_t *budget,
                               int64_t *left, int64_t deadline)
{
    VdxgState *pf = e->s->pf;
    int64_t q, now;

    if (*budget < 0) {
        *left += *budget;
        *budget = 0;
    }
    now = get_clock();
    if (*left <= 0 || now >= deadline) {
        return false;
    }
    q = vdxg_engine_grant(e, MIN(*left, VDXG_BH_QUANTUM));
    if (!q) {
        return false;
    }
    if (pf->pass_deadline && now >= pf->pass_deadline) {
        pf->late_quanta++;
    }
    *budget += q;
    *left -= q;
    return true;
}

/*
 * A run of an engine: entries from HEAD to TAIL. One run does at most
 * VDXG_BH_BUDGET of work, and stops at the next quantum once the host
 * time @deadline (get_clock()) has passed, then schedules the next run
 * and returns, so that a large move or draw does not hold the BQL (and
 * stall the vCPUs) for long. An
 * operation stopped half-way continues where it stopped (op_progress). A
 * WAIT that is not satisfied yet stops the run and looks again when the
 * wait timer fires.
 */
static void vdxg_engine_run(VdxgEngine *e, int64_t deadline)
{
    VdxgCore *s = e->s;
    int64_t budget = vdxg_engine_grant(e, VDXG_BH_QUANTUM);
    int64_t left = VDXG_BH_BUDGET - VDXG_BH_QUANTUM;
    uint32_t opcode, context, gen = s->reset_gen;
    VdxgErr err = { 0 };
    VdxgRun r;

    /*
     * A DMA of the engine may reset the device (a bridge's Secondary Bus
     * Reset reached through the bus). The reset dropped the entry: after
     * each step that did DMA, its result is abandoned if that happened.
     */
    s->bh_runs[e->index]++;
    s->access_cost = 0;
    while (vdxg_engine_runnable(e)) {
        if (budget <= 0 &&
            !vdxg_engine_refill(e, &budget, &left, deadline)) {
            trace_vdxg_engine_yield(e->index, e->head, e->buf_off,
                                    e->op_progress);
            vdxg_engine_resched(e);
            return;
        }
        if (!e->busy) {
            if (e->head == e->tail) {
                break;
            }
            if (!vdxg_engine_fetch(s, e, &budget, &opcode, &context, &err)) {
                s->access_cost = 0;
                if (s->reset_gen == gen) {
                    vdxg_engine_fault(s, e, &err, opcode, context);
                }
                break;
            }
            if (s->reset_gen != gen) {
                return;
            }
            /* Another entry: perhaps another address space */
            vdxg_engine_new_run(e);
            vdxg_engine_charge(s, &budget);
        }
        r = VDXG_RUN_DONE;
        e->waiting = false;
        while (r == VDXG_RUN_DONE && e->buf_off < e->buf_len) {
            if (budget <= 0 &&
                !vdxg_engine_refill(e, &budget, &left, deadline)) {
                r = VDXG_RUN_YIELD;
                break;
            }
            r = vdxg_engine_op(s, e, &budget, &opcode, &err);
            if (s->reset_gen != gen) {
                return;
            }
            vdxg_engine_charge(s, &budget);
            if (r == VDXG_RUN_DONE || r == VDXG_RUN_YIELD) {
                e->progress++;
            }
        }
        switch (r) {
        case VDXG_RUN_FAULT:
            vdxg_engine_fault(s, e, &err, opcode, e->context);
            return;
        case VDXG_RUN_WAIT:
            e->waiting = true;
            trace_vdxg_engine_wait(e->index, e->head, e->buf_off);
            timer_mod(e->wait_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                                     VDXG_WAIT_POLL_NS);
            return;
        case VDXG_RUN_YIELD:
            if (budget <= 0 &&
                vdxg_engine_refill(e, &budget, &left, deadline)) {
                /* Time left: go on where the operation stopped. */
                continue;
            }
            trace_vdxg_engine_yield(e->index, e->head, e->buf_off,
                                    e->op_progress);
            vdxg_engine_resched(e);
            return;
        case VDXG_RUN_DONE:
            if (!vdxg_engine_complete(s, e, &err)) {
                if (s->reset_gen != gen) {
                    return;
                }
                vdxg_engine_fault(s, e, &err,
                                  VDXG_FAULT_OPCODE_RING | (e->cmd & 0xffff),
                                  e->context);
                return;
            }
            vdxg_engine_charge(s, &budget);
            break;
        }
    }
}

/* One run of the engine, until the host time @deadline (get_clock()). */
static void vdxg_engine_slice(VdxgEngine *e, int64_t deadline)
{
    int64_t start = get_clock(), cpu = vdxg_thread_ns();
    VdxgState *pf = e->s->pf;
    int64_t ns;

    pf->slices++;
    vdxg_engine_new_run(e);
    vdxg_engine_run(e, deadline);
    vdxg_engine_unmap(e);
    pf->slices--;
    ns = get_clock() - start;
    cpu = vdxg_thread_ns() - cpu;
    trace_vdxg_engine_slice(e->index, ns, cpu);
    vdxg_note_slice(e->s, ns, cpu);
}

/*
 * The scheduler of a PF's engines: one bottom half runs the engines of
 * the PF and of all its VFs (the PF's RENDER and PAGING, then each VF's,
 * by VF index), two per function, those that have work (VdxgEngine.sched).
 * A pass of it runs them in turn, round robin from where the last pass
 * stopped, each for at most its budget (VDXG_BH_BUDGET), all under one
 * deadline of VDXG_PASS_NS of host time: once it has passed, the engine
 * at work stops at its next quantum, and the pass at the next engine,
 * which the next pass starts with. The main loop is held about
 * VDXG_PASS_NS per pass however many functions are busy; what each
 * engine does in a run is bounded by its budget, so that where it stops
 * depends on time only, never what it computes.
 */
static unsigned int vdxg_sched_count(VdxgState *pf)
{
    return VDXG_NUM_ENGINES * (1 + (pf->has_sriov ? pf->total_vfs : 0));
}

/* Engine @k of the scheduler's: the VFs' whether enabled or not */
static VdxgEngine *vdxg_sched_engine(VdxgState *pf, unsigned int k)
{
    unsigned int f = k / VDXG_NUM_ENGINES;
    PCIDevice *vf;

    if (!f) {
        return &pf->core.engine[k % VDXG_NUM_ENGINES];
    }
    vf = PCI_DEVICE(pf)->exp.sriov_pf.vf ?
         PCI_DEVICE(pf)->exp.sriov_pf.vf[f - 1] : NULL;
    if (!vf || !object_dynamic_cast(OBJECT(vf), TYPE_VDXG_VF)) {
        return NULL;
    }
    return &VDXG_VF(vf)->core.engine[k % VDXG_NUM_ENGINES];
}

/*
 * Run @e in a pass. The PF's re-entrancy guard is engaged for the whole
 * pass (the bottom half is the PF's); a VF's engine also engages its
 * function's, as a bottom half of the VF's own would.
 */
static void vdxg_sched_run(VdxgEngine *e, int64_t deadline)
{
    MemReentrancyGuard *g = &DEVICE(e->s->pdev)->mem_reentrancy_guard;
    bool engaged = g->engaged_in_io;

    g->engaged_in_io = true;
    vdxg_engine_slice(e, deadline);
    g->engaged_in_io = engaged;
}

/*
 * Keep the longest pass (real and CPU time), the second longest (CPU),
 * and count those above the limit (CPU)
 */
static void vdxg_sched_note(VdxgState *pf, int64_t ns, int64_t cpu)
{
    pf->passes++;
    if (ns > 0 && (uint64_t)ns > pf->max_pass_ns) {
        pf->max_pass_ns = ns;
    }
    if (cpu <= 0) {
        return;
    }
    if ((uint64_t)cpu > pf->pass_limit_ns) {
        pf->passes_over++;
    }
    if ((uint64_t)cpu > pf->max_pass_cpu_ns) {
        pf->next_pass_cpu_ns = pf->max_pass_cpu_ns;
        pf->max_pass_cpu_ns = cpu;
    } else if ((uint64_t)cpu > pf->next_pass_cpu_ns) {
        pf->next_pass_cpu_ns = cpu;
    }
}

static void vdxg_sched_bh(void *opaque)
{
    VdxgState *pf = opaque;
    int64_t start = get_clock(), cpu = vdxg_thread_ns();
    int64_t deadline = start + VDXG_PASS_NS;
    unsigned int n = vdxg_sched_count(pf), first = pf->sched_next;
    unsigned int i, k, ran = 0;
    VdxgEngine *e;

    pf->pass_deadline = deadline;
    for (i = 0; i < n; i++) {
        k = (first + i) % n;
        e = vdxg_sched_engine(pf, k);
        if (!e || !e->sched) {
            continue;
        }
        if (ran && get_clock() >= deadline) {
            /* Out of time: the next pass starts with this engine. */
            pf->sched_next = k;
            pf->sched_more = true;
            break;
        }
        e->sched = false;
        vdxg_sched_run(e, deadline);
        ran++;
        pf->sched_next = (k + 1) % n;
    }
    pf->pass_deadline = 0;
    cpu = vdxg_thread_ns() - cpu;
    start = get_clock() - start;
    pf->busy_ns = pf->sched_more ? pf->busy_ns + start : 0;
    if (pf->sched_more) {
        pf->sched_more = false;
        vdxg_sched_later(pf);
    }
    trace_vdxg_sched_pass(ran, start, cpu);
    vdxg_sched_note(pf, start, cpu);
}

/* The gap after a pass that left work is over: the next pass */
static void vdxg_sched_timer(void *opaque)
{
    VdxgState *pf = opaque;

    qemu_bh_schedule(pf->sched_bh);
}

/* The wait timer: look at the WAIT's address again. */
static void vdxg_engine_wait_timer(void *opaque)
{
    vdxg_engine_schedule(opaque);
}

/*
 * ENABLE or DOORBELL: check the ring, then run it. The first slice runs in
 * the register write itself, for at most VDXG_KICK_NS, so that a short
 * entry completes without waiting for the main loop; what is left goes to
 * the bottom half, as does all of it when the engine waits, when the VM
 * is stopped, and when the write is an engine's DMA (a slice is under
 * way). The write is an access to the device's MMIO, so the device's
 * re-entrancy guard holds during that slice as it does in the bottom
 * half, and the reset generation is checked after each DMA alike.
 */
static void vdxg_engine_kick(VdxgCore *s, VdxgEngine *e)
{
    VdxgErr err;

    if (!(e->ctrl & VDXG_ENG_CTRL_ENABLE) || e->halted) {
        trace_vdxg_engine_kick_ignored(e->index, e->ctrl, e->halted);
        return;
    }
    if (!vdxg_ring_check(s, e, &err)) {
        vdxg_engine_fault(s, e, &err, VDXG_FAULT_OPCODE_RING, 0);
        return;
    }
    trace_vdxg_engine_kick(e->index, e->head, e->tail);
    if (e->waiting || !runstate_is_running() || s->pf->slices) {
        /*
         * A doorbell an engine's DMA rang (a pass or a slice is under
         * way): the slice would run inside that one, past its deadline.
         */
        vdxg_engine_schedule(e);
        return;
    }
    s->kick_slices++;
    vdxg_engine_slice(e, get_clock() + VDXG_KICK_NS);
}

/*
 * Engine RESET: every register to 0, the entry in progress (a WAIT
 * included) dropped. What follows rd in VdxgEngine stays.
 */
void vdxg_engine_reset(VdxgCore *s, VdxgEngine *e)
{
    trace_vdxg_engine_reset(e->index, e->head, e->tail, e->halted);
    s->reset_gen++;
    vdxg_engine_drop_entry(e);
    memset(e, 0, offsetof(VdxgEngine, index));
    e->sched = false;
}

static void vdxg_vm_state_change(void *opaque, bool running, RunState state)
{
    VdxgCore *s = opaque;
    unsigned int i;

    /* The engines do not run while the VM is stopped; catch up now. */
    if (running) {
        for (i = 0; i < VDXG_NUM_ENGINES; i++) {
            vdxg_engine_schedule(&s->engine[i]);
        }
    }
}

static uint32_t vdxg_engine_status(VdxgEngine *e)
{
    uint32_t status = 0;

    if (!e->busy && e->head == e->tail) {
        status |= VDXG_ENG_STATUS_IDLE;
    }
    if (e->halted) {
        status |= VDXG_ENG_STATUS_HALTED;
    }
    if (e->busy && e->waiting) {
        status |= VDXG_ENG_STATUS_WAITING;
    }
    return status;
}

/* The engine whose register block holds @addr, or NULL */
static VdxgEngine *vdxg_engine_at(VdxgCore *s, hwaddr addr)
{
    if (addr < VDXG_ENGINE_BASE(0) ||
        addr >= VDXG_ENGINE_BASE(VDXG_NUM_ENGINES)) {
        return NULL;
    }
    return &s->engine[(addr - VDXG_ENGINE_BASE(0)) / 0x100];
}

/* The engines' registers; false for an offset that is none. */
bool vdxg_engine_read(VdxgCore *s, hwaddr addr, uint32_t *val)
{
    VdxgEngine *e = vdxg_engine_at(s, addr);

    if (!e) {
        return false;
    }
    switch (addr - VDXG_ENGINE_BASE(e->index)) {
    case VDXG_ENG_RING_BASE_LO:
        *val = extract64(e->ring_base, 0, 32);
        break;
    case VDXG_ENG_RING_BASE_HI:
        *val = extract64(e->ring_base, 32, 32);
        break;
    case VDXG_ENG_RING_SIZE:
        *val = e->ring_size;
        break;
    case VDXG_ENG_RING_HEAD:
        *val = e->head;
        break;
    case VDXG_ENG_RING_TAIL:
        *val = e->tail;
        break;
    case VDXG_ENG_CTRL:
        *val = e->ctrl;
        break;
    case VDXG_ENG_STATUS:
        *val = vdxg_engine_status(e);
        break;
    case VDXG_ENG_FENCE_ADDR_LO:
        *val = extract64(e->fence_addr, 0, 32);
        break;
    case VDXG_ENG_FENCE_ADDR_HI:
        *val = extract64(e->fence_addr, 32, 32);
        break;
    case VDXG_ENG_FENCE_VALUE_LO:
        *val = extract64(e->fence_value, 0, 32);
        break;
    case VDXG_ENG_FENCE_VALUE_HI:
        *val = extract64(e->fence_value, 32, 32);
        break;
    case VDXG_ENG_PROGRESS:
        *val = e->progress;
        break;
    case VDXG_ENG_DOORBELL:
    case VDXG_ENG_RESET:
        /* Write-only registers read as zero. */
        *val = 0;
        break;
    default:
        return false;
    }
    return true;
}

bool vdxg_engine_write(VdxgCore *s, hwaddr addr, uint32_t val)
{
    VdxgEngine *e = vdxg_engine_at(s, addr);

    if (!e) {
        return false;
    }
    switch (addr - VDXG_ENGINE_BASE(e->index)) {
    case VDXG_ENG_RING_BASE_LO:
        e->ring_base = deposit64(e->ring_base, 0, 32, val);
        break;
    case VDXG_ENG_RING_BASE_HI:
        e->ring_base = deposit64(e->ring_base, 32, 32, val);
        break;
    case VDXG_ENG_RING_SIZE:
        e->ring_size = val;
        break;
    case VDXG_ENG_RING_TAIL:
        e->tail = val;
        break;
    case VDXG_ENG_DOORBELL:
        vdxg_engine_kick(s, e);
        break;
    case VDXG_ENG_CTRL:
        if (val & ~VDXG_ENG_CTRL_ENABLE) {
            vdxg_guest_error("undefined CTRL bits dropped", addr, val);
        }
        e->ctrl = val & VDXG_ENG_CTRL_ENABLE;
        if (e->ctrl & VDXG_ENG_CTRL_ENABLE) {
            vdxg_engine_kick(s, e);
        }
        break;
    case VDXG_ENG_FENCE_ADDR_LO:
        e->fence_addr = deposit64(e->fence_addr, 0, 32, val);
        break;
    case VDXG_ENG_FENCE_ADDR_HI:
        e->fence_addr = deposit64(e->fence_addr, 32, 32, val);
        break;
    case VDXG_ENG_RESET:
        if (val & 1) {
            vdxg_engine_reset(s, e);
        } else {
            vdxg_guest_error("engine RESET without bit 0 ignored", addr, val);
        }
        break;
    case VDXG_ENG_RING_HEAD:
    case VDXG_ENG_STATUS:
    case VDXG_ENG_FENCE_VALUE_LO:
    case VDXG_ENG_FENCE_VALUE_HI:
    case VDXG_ENG_PROGRESS:
        vdxg_guest_error("write to read-only register", addr, val);
        break;
    default:
        return false;
    }
    return true;
}

/*
 * The engines' timers, on the PF and on each VF; on the PF (realized
 * before its VFs) the scheduler of all of them.
 */
void vdxg_engines_init(VdxgCore *s)
{
    unsigned int i;

    if (!s->vf) {
        s->pf->sched_bh = qemu_bh_new_guarded(vdxg_sched_bh, s->pf,
                                    &DEVICE(s->pdev)->mem_reentrancy_guard);
        s->pf->sched_timer = timer_new_ns(QEMU_CLOCK_REALTIME,
                                          vdxg_sched_timer, s->pf);
        s->pf->sched_next = 0;
    }
    for (i = 0; i < VDXG_NUM_ENGINES; i++) {
        VdxgEngine *e = &s->engine[i];

        e->index = i;
        e->s = s;
        if (i == VDXG_ENGINE_RENDER) {
            vdxg_3d_init(e);
        }
        e->wait_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                     vdxg_engine_wait_timer, e);
    }
    s->vmse = qemu_add_vm_change_state_handler(vdxg_vm_state_change, s);
}

/*
 * x-pg-hold-after and x-rd-hold-after, for tests: writing N > 0 lets the
 * engine do N more bytes of work (as its budget charges them: data, or
 * the equivalent in operations and pixels), after which it holds in the
 * middle of its entry, as if it were paused, and STATUS shows it busy.
 * Writing 0 lets it go on. Reading gives the work left before it holds:
 * 0 once it holds (or when no hold is set). Resets keep it; it is not
 * migrated, and the guest has no way to it.
 */
static void vdxg_engine_get_hold(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    VdxgEngine *e = opaque;
    uint64_t n = e->hold_left;

    visit_type_uint64(v, name, &n, errp);
}

static void vdxg_engine_set_hold(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    VdxgEngine *e = opaque;
    uint64_t n;

    if (!visit_type_uint64(v, name, &n, errp)) {
        return;
    }
    e->hold = n != 0;
    e->hold_left = n;
    if (e->s && e->s->pf->sched_bh) {
        /* Go on, if the engine has work and is enabled */
        vdxg_engine_schedule(e);
    }
}

void vdxg_engine_add_props(VdxgCore *s, Object *obj)
{
    static const char *const names[VDXG_NUM_ENGINES] = {
        [VDXG_ENGINE_RENDER] = "x-rd-hold-after",
        [VDXG_ENGINE_PAGING] = "x-pg-hold-after",
    };
    unsigned int i;

    for (i = 0; i < VDXG_NUM_ENGINES; i++) {
        object_property_add(obj, names[i], "uint64", vdxg_engine_get_hold,
                            vdxg_engine_set_hold, NULL, &s->engine[i]);
        object_property_set_description(obj, names[i],
            "Test only: hold the engine after this many more bytes of "
            "work (0: no hold)");
    }
}

void vdxg_engines_exit(VdxgCore *s)
{
    unsigned int i;

    qemu_del_vm_change_state_handler(s->vmse);
    for (i = 0; i < VDXG_NUM_ENGINES; i++) {
        VdxgEngine *e = &s->engine[i];

        vdxg_engine_drop_entry(e);
        vdxg_3d_exit(e);
        timer_free(e->wait_timer);
        e->wait_timer = NULL;
        e->sched = false;
    }
    if (!s->vf) {
        /* The VFs went first (pcie_sriov_pf_exit), or never came. */
        qemu_bh_delete(s->pf->sched_bh);
        s->pf->sched_bh = NULL;
        timer_free(s->pf->sched_timer);
        s->pf->sched_timer = NULL;
    }
}

/* Migration: the entry in progress comes in subsections, when there is one. */
static bool vdxg_engine_entry_needed(void *opaque)
{
    VdxgEngine *e = opaque;

    return e->busy;
}

static bool vdxg_engine_render_needed(void *opaque)
{
    VdxgEngine *e = opaque;

    return e->busy && e->index == VDXG_ENGINE_RENDER;
}

static bool vdxg_engine_3d_needed(void *opaque)
{
    VdxgEngine *e = opaque;

    return e->busy && e->index == VDXG_ENGINE_RENDER && e->g3d;
}

static bool vdxg_engine_virt_needed(void *opaque)
{
    VdxgEngine *e = opaque;

    return e->busy && e->virt;
}

/* Without the subsections the engine is between entries. */
static int vdxg_engine_pre_load(void *opaque)
{
    VdxgEngine *e = opaque;

    vdxg_engine_drop_entry(e);
    e->waiting = false;
    e->cmd = 0;
    e->context = 0;
    e->seqno = 0;
    e->buf_addr = 0;
    e->buf_len = 0;
    return 0;
}

/*
 * Check what the engine relies on. The ring registers (base, size, tail,
 * fence address) are checked when an entry is fetched, as after a guest
 * write; the operation at buf_off is checked against its command when it
 * resumes.
 */
static int vdxg_engine_post_load(void *opaque, int version_id)
{
    VdxgEngine *e = opaque;
    VdxgCore *s = e->s;
    unsigned int slot;

    if ((e->ctrl & ~VDXG_ENG_CTRL_ENABLE) ||
        e->head % VDXG_RING_ENTRY_SIZE || e->head > VDXG_RING_SIZE_MAX) {
        return -EINVAL;
    }
    if (!e->busy) {
        /* Virtual mode is a state of an entry in progress only. */
        return e->virt ? -EINVAL : 0;
    }
    /*
     * An EXEC_VIRTUAL entry came with its subsection (virt set) and names
     * its address space; its state area is a page inside VRAM.
     */
    if (e->virt != (e->cmd != VDXG_RING_CMD_NOP &&
                    e->cmd != VDXG_RING_CMD_EXEC) ||
        (e->virt &&
         (e->index != VDXG_ENGINE_RENDER ||
          !(s->caps & VDXG_CAP_GPU_MMU) ||
          VDXG_RING_CMD_OP(e->cmd) != VDXG_RING_CMD_EXEC_VIRTUAL ||
          (e->cmd >> 16) || e->as != VDXG_RING_CMD_AS(e->cmd) ||
          (e->state_area & VDXG_PAGE_MASK) ||
          (e->state_area &&
           !vdxg_in_vram(s, e->state_area, VDXG_CTX_STATE_SIZE)))) ||
        (e->cmd == VDXG_RING_CMD_NOP && (e->buf_len || e->buf_addr)) ||
        e->buf_len > VDXG_RING_LENGTH_MAX || e->buf_len % 4 ||
        e->buf_off > e->buf_len || e->buf_off % 4 ||
        (e->waiting && e->buf_off == e->buf_len)) {
        return -EINVAL;
    }
    if (e->index != VDXG_ENGINE_RENDER) {
        return 0;
    }
    /* Pixels are accessed without further checks: bound surfaces */
    for (slot = 0; slot < VDXG_NUM_SLOTS; slot++) {
        if (e->rd.surf[slot].format &&
            vdxg_surface_check(s, slot, &e->rd.surf[slot], e->virt) !=
            VDXG_FAULT_NONE) {
            return -EINVAL;
        }
    }
    /* The snapshot is checked against its command when it is used. */
    if (!e->rd.snap != !e->rd.snap_len) {
        return -EINVAL;
    }
    /* The 3D state, as its commands would have checked it */
    if (e->g3d && !vdxg_3d_post_load(e)) {
        return -EINVAL;
    }
    return 0;
}

static const VMStateDescription vmstate_vdxg_engine_entry = {
    .name = "vdxg/engine/entry",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = vdxg_engine_entry_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(busy, VdxgEngine),
        VMSTATE_UINT32(cmd, VdxgEngine),
        VMSTATE_UINT32(context, VdxgEngine),
        VMSTATE_UINT64(seqno, VdxgEngine),
        VMSTATE_UINT64(buf_addr, VdxgEngine),
        VMSTATE_UINT32(buf_len, VdxgEngine),
        VMSTATE_UINT32(buf_off, VdxgEngine),
        VMSTATE_UINT64(op_progress, VdxgEngine),
        VMSTATE_BOOL(waiting, VdxgEngine),
        VMSTATE_END_OF_LIST()
    },
};

/* An EXEC_VIRTUAL entry: its address space and state area */
static const VMStateDescription vmstate_vdxg_engine_virt = {
    .name = "vdxg/engine/virt",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = vdxg_engine_virt_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(virt, VdxgEngine),
        VMSTATE_UINT32(as, VdxgEngine),
        VMSTATE_UINT64(state_area, VdxgEngine),
        VMSTATE_END_OF_LIST()
    },
};

static const VMStateDescription vmstate_vdxg_surface = {
    .name = "vdxg/surface",
    .version_id = 1,
    .minimum_version_id = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(addr, VdxgSurface),
        VMSTATE_UINT32(format, VdxgSurface),
        VMSTATE_UINT32(width, VdxgSurface),
        VMSTATE_UINT32(height, VdxgSurface),
        VMSTATE_UINT32(pitch, VdxgSurface),
        VMSTATE_END_OF_LIST()
    },
};

/* A band buffer is at most VDXG_COPY_BAND_SIZE: larger is not loaded. */
static bool vdxg_snap_len_ok(void *opaque, int version_id)
{
    VdxgEngine *e = opaque;

    return e->rd.snap_len <= VDXG_COPY_BAND_SIZE;
}

/*
 * The latched command is one the engine could have started, and an
 * overlapping copy's progress has its band buffer; the rest is checked
 * against the command each time the engine runs it.
 */
static int vdxg_render_post_load(void *opaque, int version_id)
{
    VdxgEngine *e = opaque;
    VdxgRender *rd = &e->rd;
    uint32_t op = VDXG_PG_HDR_OP(rd->dw[0]);
    bool copy = rd->dw_len && (op == VDXG_RD_COPY_RECT || op == VDXG_RD_BLEND);
    bool draw3d = rd->dw_len && (op == VDXG_RD_DRAW ||
                                 op == VDXG_RD_DRAW_INDEXED);
    bool clear = rd->dw_len && op == VDXG_RD_CLEAR;

    if (rd->dw_len > VDXG_RD_CMD_MAX_LEN ||
        (rd->dw_len && VDXG_PG_HDR_LEN(rd->dw[0]) != rd->dw_len) ||
        (!copy && (rd->band || rd->snap_len)) ||
        (!copy && !draw3d && !clear && rd->phase) ||
        (copy && ((rd->phase && !rd->snap_len) ||
                  rd->snap_len > VDXG_COPY_BAND_SIZE)) ||
        rd->phase > (clear ? 2 : 1)) {
        return -EINVAL;
    }
    return 0;
}

/* The RENDER engine's state of the entry in progress */
static const VMStateDescription vmstate_vdxg_engine_render = {
    .name = "vdxg/engine/render",
    .version_id = 2,
    .minimum_version_id = 1,
    .needed = vdxg_engine_render_needed,
    .post_load = vdxg_render_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_ARRAY(rd.surf, VdxgEngine, VDXG_NUM_SLOTS, 1,
                             vmstate_vdxg_surface, VdxgSurface),
        VMSTATE_UINT32(rd.item, VdxgEngine),
        VMSTATE_UINT32_SUB_ARRAY(rd.dw, VdxgEngine, 0,
                                 VDXG_RD_CMD_MAX_LEN_V1),
        VMSTATE_UINT32(rd.dw_len, VdxgEngine),
        VMSTATE_UINT32(rd.band, VdxgEngine),
        VMSTATE_UINT32(rd.phase, VdxgEngine),
        VMSTATE_UINT32(rd.snap_len, VdxgEngine),
        VMSTATE_VBUFFER_ALLOC_UINT32(rd.snap, VdxgEngine, 1,
                                     vdxg_snap_len_ok, rd.snap_len),
        /* Version 2: the 3D pipeline's longer commands (SET_STATE) */
        VMSTATE_SUB_ARRAY(rd.dw, VdxgEngine, VDXG_RD_CMD_MAX_LEN_V1,
                          VDXG_RD_CMD_MAX_LEN - VDXG_RD_CMD_MAX_LEN_V1, 2,
                          vmstate_info_uint32, uint32_t),
        VMSTATE_END_OF_LIST()
    },
};

/* The 3D state of the entry in progress (RENDER) */
static const VMStateDescription vmstate_vdxg_engine_3d = {
    .name = "vdxg/engine/3d",
    .version_id = 1,
    .minimum_version_id = 1,
    .needed = vdxg_engine_3d_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_POINTER(g3d, VdxgEngine, vmstate_vdxg_3d,
                               struct Vdxg3d),
        VMSTATE_END_OF_LIST()
    },
};

const VMStateDescription vmstate_vdxg_engine = {
    .name = "vdxg/engine",
    .version_id = 1,
    .minimum_version_id = 1,
    .pre_load = vdxg_engine_pre_load,
    .post_load = vdxg_engine_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_UINT64(ring_base, VdxgEngine),
        VMSTATE_UINT32(ring_size, VdxgEngine),
        VMSTATE_UINT32(head, VdxgEngine),
        VMSTATE_UINT32(tail, VdxgEngine),
        VMSTATE_UINT32(ctrl, VdxgEngine),
        VMSTATE_BOOL(halted, VdxgEngine),
        VMSTATE_UINT64(fence_addr, VdxgEngine),
        VMSTATE_UINT64(fence_value, VdxgEngine),
        VMSTATE_UINT32(progress, VdxgEngine),
        VMSTATE_END_OF_LIST()
    },
    .subsections = (const VMStateDescription * const []) {
        &vmstate_vdxg_engine_entry,
        &vmstate_vdxg_engine_render,
        &vmstate_vdxg_engine_virt,
        &vmstate_vdxg_engine_3d,
        NULL
    },
};

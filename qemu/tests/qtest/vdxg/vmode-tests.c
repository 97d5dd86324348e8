/*
 * QTest testcases for the vdxg virtual GPU: the RENDER engine's
 * virtual-mode ring entries (EXEC_VIRTUAL) and context state areas
 *
 * Copyright (c) 2026 The vdxg authors
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "vdxg-test.h"

/*
 * VRAM layout, above the render tests' windows (RD_VB ends at 24 MiB):
 * the AS table, four tables for each of VM_NUM_AS address spaces, state
 * areas, the pool of VRAM pages the address spaces map, and the
 * physical-mode copies of the surfaces.
 */
#define VM_NUM_AS           4
#define VM_AS_TABLE         0x1800000ull
#define VM_TBL(as, level)   (0x1801000ull + ((as) * 4 + 3 - (level)) * PG_PAGE)
#define VM_STATE(n)         (0x1820000ull + (uint64_t)(n) * PG_PAGE)
#define VM_POOL(n)          (0x1900000ull + (uint64_t)(n) * PG_PAGE)
#define VM_POOL_PAGES       256
#define VM_PHYS             0x1a00000ull
/* System pages the address spaces map */
#define VM_SYS(n)           SYS_PAGE(3000 + (n))
#define VM_CTX              0x5151

/* Virtual addresses: below 2 MiB, one level-0 table an address space */
#define VA_DST              0x10000ull
#define VA_SRC              0x20000ull
#define VA_DEPTH            0x30000ull
#define VA_TEX              0x40000ull
#define VA_VB               0x50fc0ull      /* straddles two pages */
#define VA_MEM              0x60000ull
#define VA_BUF              0x70000ull

#define PTE_VRAM(a)         ((uint64_t)(a) | VDXG_PTE_VALID | \
                             VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_VRAM))
#define PTE_SYS(a)          ((uint64_t)(a) | VDXG_PTE_VALID | \
                             VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_SYSTEM))

/* The test's view of the address spaces: what each level-0 entry holds */
typedef struct Vm {
    Pg *p;
    uint64_t pte[VM_NUM_AS][512];
    unsigned int next_pool;
    unsigned int next_sys;
} Vm;

static void vm_writeq(Pg *p, uint64_t off, uint64_t val)
{
    qtest_writeq(p->v.qts, p->vram.addr + off, val);
}

/* Address space @as: its AS entry and directories down to level 0 */
static void vm_as(Pg *p, uint32_t as)
{
    vm_writeq(p, VM_AS_TABLE + as * 16, VM_TBL(as, 3) | VDXG_VM_AS_VALID);
    vm_writeq(p, VM_AS_TABLE + as * 16 + 8, 0);
    vm_writeq(p, VM_TBL(as, 3), VM_TBL(as, 2) | VDXG_PTE_VALID);
    vm_writeq(p, VM_TBL(as, 2), VM_TBL(as, 1) | VDXG_PTE_VALID);
    vm_writeq(p, VM_TBL(as, 1), VM_TBL(as, 0) | VDXG_PTE_VALID);
}

/* A device with the RENDER ring set up and VM_NUM_AS address spaces */
static void vm_start(Vm *m)
{
    uint32_t as;
    uint64_t i;

    memset(m, 0, sizeof(*m));
    m->p = rd_start();
    for (as = 0; as < VM_NUM_AS; as++) {
        for (i = 0; i < 4; i++) {
            uint64_t z[512] = { 0 };

            vram_write(m->p, VM_TBL(as, i), z, sizeof(z));
        }
        vm_as(m->p, as);
    }
    wr64(&m->p->v, VDXG_REG_VM_TABLE_LO, VM_AS_TABLE);
    wr(&m->p->v, VDXG_REG_VM_TABLE_ENTRIES, VM_NUM_AS);
    wr(&m->p->v, VDXG_REG_VM_CTRL, VDXG_VM_CTRL_ENABLE);
}

static void vm_stop(Vm *m)
{
    rd_stop(m->p);
}

/* Set the level-0 entry of @va in @as, and flush the TLBs. */
static void vm_map(Vm *m, uint32_t as, uint64_t va, uint64_t pte)
{
    g_assert_cmphex(va, <, 2 * MiB);
    m->pte[as][va >> 12] = pte;
    vm_writeq(m->p, VM_TBL(as, 0) + (va >> 12) * 8, pte);
    wr(&m->p->v, VDXG_REG_VM_TLB_FLUSH, VDXG_VM_FLUSH_ALL);
}

/*
 * Map the pages from @va on, one for each character of @kinds: v a VRAM
 * page of the pool (the pool is used in a scattered order), s a system
 * page, z a null page, r a read-only VRAM page, x a NO_EXEC VRAM page, n
 * none (not present).
 */
static void vm_back(Vm *m, uint32_t as, uint64_t va, const char *kinds)
{
    uint64_t pte;

    for (; *kinds; kinds++, va += PG_PAGE) {
        uint64_t pool = VM_POOL((m->next_pool * 37) % VM_POOL_PAGES);

        switch (*kinds) {
        case 'v':
        case 'r':
        case 'x':
            pte = PTE_VRAM(pool);
            pte |= *kinds == 'r' ? VDXG_PTE_READ_ONLY : 0;
            pte |= *kinds == 'x' ? VDXG_PTE_NO_EXEC : 0;
            m->next_pool++;
            break;
        case 's':
            pte = PTE_SYS(VM_SYS(m->next_sys++));
            break;
        case 'z':
            pte = VDXG_PTE_VALID | VDXG_PTE_ZERO;
            break;
        case 'n':
            pte = 0;
            break;
        default:
            g_assert_not_reached();
        }
        vm_map(m, as, va & ~(uint64_t)(PG_PAGE - 1), pte);
    }
}

/* Copy between @buf and [va, va + len) of @as, as the CPU, page by page */
static void vm_rw(Vm *m, uint32_t as, uint64_t va, void *buf, uint64_t len,
                  bool write)
{
    uint8_t *b = buf;
    uint64_t n, pte, addr;

    for (; len; va += n, b += n, len -= n) {
        n = MIN(len, PG_PAGE - (va & (PG_PAGE - 1)));
        pte = m->pte[as][va >> 12];
        g_assert_true(pte & VDXG_PTE_VALID);
        addr = (pte & VDXG_PTE_ADDR_MASK) + (va & (PG_PAGE - 1));
        if (pte & VDXG_PTE_ZERO) {
            if (!write) {
                memset(b, 0, n);
            }
        } else if ((pte & VDXG_PTE_SEGMENT_MASK) ==
                   VDXG_PTE_SEGMENT(VDXG_PTE_SEGMENT_VRAM)) {
            if (write) {
                vram_write(m->p, addr, b, n);
            } else {
                vram_read(m->p, addr, b, n);
            }
        } else if (write) {
            sys_write(m->p, addr, b, n);
        } else {
            sys_read(m->p, addr, b, n);
        }
    }
}

static uint32_t vm_readl(Vm *m, uint32_t as, uint64_t va)
{
    uint32_t v;

    vm_rw(m, as, va, &v, 4, false);
    return le32_to_cpu(v);
}

/* The buffer built so far at @va of @as, and an EXEC_VIRTUAL of it */
static void vm_queue(Vm *m, uint32_t as, uint64_t va, uint32_t state_page)
{
    Pg *p = m->p;

    vm_rw(m, as, va, p->buf, pb_off(p), true);
    ring_entry(p, VDXG_RING_CMD_VIRTUAL(as), pb_off(p), va, ++p->seqno,
               VM_CTX, state_page);
}

/* Say what faulted, if anything did. */
static void vm_report(Pg *p)
{
    if (rd(&p->v, VDXG_REG_FAULT_STATUS)) {
        g_test_message("fault: reason %u opcode 0x%x addr 0x%" PRIx64
                       " vm %u access %u", rd(&p->v, VDXG_REG_FAULT_REASON),
                       rd(&p->v, VDXG_REG_FAULT_OPCODE),
                       rd64(&p->v, VDXG_REG_FAULT_ADDR_LO),
                       rd(&p->v, VDXG_REG_FAULT_VM),
                       rd(&p->v, VDXG_REG_FAULT_ACCESS));
    }
}

static void vm_run(Vm *m, uint32_t as, uint64_t va, uint32_t state_page)
{
    vm_queue(m, as, va, state_page);
    ring_kick(m->p);
    pg_wait(m->p);
    vm_report(m->p);
    pg_finish(m->p);
    pb_reset(m->p);
}

/*
 * The entry queued faults with @reason at @addr, FAULT_OPCODE @opcode;
 * for VM faults also with @as and @access. The engine recovers.
 */
static void vm_fault(Vm *m, uint32_t reason, uint32_t opcode, uint64_t addr,
                     uint32_t as, uint32_t access)
{
    Pg *p = m->p;

    ring_kick(p);
    g_assert_cmphex(pg_wait(p) & VDXG_ENG_STATUS_HALTED, !=, 0);
    g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_REASON), ==, reason);
    if (reason >= VDXG_FAULT_VM_NOT_PRESENT) {
        g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_VM), ==, as);
        g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_ACCESS), ==, access);
    } else {
        g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_VM), ==, 0);
        g_assert_cmpuint(rd(&p->v, VDXG_REG_FAULT_ACCESS), ==, 0);
    }
    pg_expect_fault(p, reason, opcode, addr, VM_CTX);
    pb_reset(p);
}

/* The opcode a ring-level fault of an EXEC_VIRTUAL of @as reports */
#define RING_OP(as)         (VDXG_FAULT_OPCODE_RING | \
                             VDXG_RING_CMD_VIRTUAL(as))

/* Vertices in the layout the engine reads */
static void vtx_put(uint8_t *b, const RdVtx *v, uint32_t n)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        uint8_t *d = b + i * VDXG_VERTEX_SIZE;

        stl_le_p(d + VDXG_VTX_DW_X * 4, v[i].x);
        stl_le_p(d + VDXG_VTX_DW_Y * 4, v[i].y);
        stl_le_p(d + VDXG_VTX_DW_Z * 4, v[i].z);
        stl_le_p(d + VDXG_VTX_DW_COLOR * 4, v[i].color);
        stl_le_p(d + VDXG_VTX_DW_U * 4, v[i].u);
        stl_le_p(d + VDXG_VTX_DW_V * 4, v[i].v);
        stl_le_p(d + 24, 0xdead0000 + i);
        stl_le_p(d + 28, 0xffffffff);
    }
}

/*
 * Every command, the same in both modes: the surfaces' and the memory's
 * addresses are physical or virtual.
 */
typedef struct VmScene {
    uint64_t dst, src, depth, tex, vb, mem;
} VmScene;

/* DST XRGB8888 64x40 pitch 320; SRC RGB565 64x40 pitch 160; DEPTH D32
 * 64x40 pitch 256; TEXTURE ARGB8888 48x48 pitch 192 */
#define SC_DST_SPAN         (320 * 39 + 64 * 4)
#define SC_SRC_SPAN         (160 * 39 + 64 * 2)
#define SC_DEPTH_SPAN       (256 * 39 + 64 * 4)
#define SC_TEX_SPAN         (192 * 47 + 48 * 4)
#define SC_VB_LEN           (6 * VDXG_VERTEX_SIZE)

static void vm_scene_build(Pg *p, const VmScene *a)
{
    const uint32_t dtf = VDXG_DRAW_TEXTURE | VDXG_DRAW_BILINEAR |
                         VDXG_DRAW_DEPTH_TEST | VDXG_DRAW_DEPTH_WRITE;

    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DST, a->dst, VDXG_FMT_XRGB8888, 64, 40, 320);
    rd_set_surface(p, VDXG_SLOT_SRC, a->src, VDXG_FMT_RGB565, 64, 40, 160);
    rd_set_surface(p, VDXG_SLOT_DEPTH, a->depth, VDXG_FMT_D32, 64, 40, 256);
    rd_set_surface(p, VDXG_SLOT_TEXTURE, a->tex, VDXG_FMT_ARGB8888, 48, 48, 192);
    rd_fill(p, 3, 2, 50, 30, 0x80123456);
    /* RGB565 to XRGB8888: pixel by pixel */
    rd_copy(p, 1, 1, 10, 5, 40, 30);
    rd_blend(p, 0, 0, 2, 3, 60, 20, 200);
    /* DST onto itself: a move, last pixel first, in runs */
    rd_set_surface(p, VDXG_SLOT_SRC, a->dst, VDXG_FMT_XRGB8888, 64, 40, 320);
    rd_copy(p, 5, 5, 7, 9, 40, 25);
    /* DST's memory as RGB565: an overlap through the band buffer */
    rd_set_surface(p, VDXG_SLOT_SRC, a->dst, VDXG_FMT_RGB565, 128, 40, 320);
    rd_copy(p, 0, 0, 1, 1, 30, 20);
    /* TEXTURE (with its null page) to DST: runs with alpha set */
    rd_set_surface(p, VDXG_SLOT_SRC, a->tex, VDXG_FMT_ARGB8888, 48, 48, 192);
    rd_copy(p, 0, 0, 8, 0, 48, 40);
    rd_blend(p, 3, 4, 20, 20, 40, 20, 77);
    rd_draw(p, dtf, 6, a->vb);
    rd_mem(p, VDXG_RD_FENCE, a->mem + 8, 0x1122334455667788ull);
    rd_mem(p, VDXG_RD_WAIT, a->mem + 16, 5);
    rd_nop(p);
}

static void vm_scene_data(uint8_t *dst, uint8_t *src, uint8_t *depth,
                          uint8_t *tex, uint8_t *vb)
{
    g_autoptr(GRand) rnd = g_rand_new_with_seed(1717);
    RdVtx v[6];
    uint32_t i;

    for (i = 0; i < SC_DST_SPAN; i++) {
        dst[i] = g_rand_int(rnd);
    }
    for (i = 0; i < SC_SRC_SPAN; i++) {
        src[i] = g_rand_int(rnd);
    }
    for (i = 0; i < SC_DEPTH_SPAN; i++) {
        depth[i] = g_rand_int(rnd);
    }
    for (i = 0; i < SC_TEX_SPAN; i++) {
        tex[i] = g_rand_int(rnd);
    }
    /* The texture's second page is a null page in virtual mode. */
    memset(tex + PG_PAGE, 0, PG_PAGE);
    rd_quad(v, PX(1), PX(2), PX(60), PX(38), 0, 0, 48 << 16, 48 << 16,
            0x40000000, 0xfff0e0d0);
    v[1].color = 0x80102030;
    v[4].z = 0xf0000000;
    vtx_put(vb, v, 6);
}

/*
 * Every render command in virtual mode gives the pixels it gives in
 * physical mode, with the surfaces on scattered VRAM pages, system pages
 * and a null page, the vertex buffer and the command buffer straddling a
 * VRAM and a system page.
 */
static void test_vm_commands(void)
{
    uint8_t dst[SC_DST_SPAN], src[SC_SRC_SPAN], depth[SC_DEPTH_SPAN];
    uint8_t tex[SC_TEX_SPAN], vb[SC_VB_LEN];
    uint8_t pdst[SC_DST_SPAN], pdepth[SC_DEPTH_SPAN];
    uint8_t vdst[SC_DST_SPAN], vdepth[SC_DEPTH_SPAN];
    const VmScene phys = {
        VM_PHYS, VM_PHYS + 0x10000, VM_PHYS + 0x20000, VM_PHYS + 0x30000,
        VM_PHYS + 0x40000, VM_PHYS + 0x50000,
    };
    const VmScene virt = {
        VA_DST, VA_SRC, VA_DEPTH, VA_TEX, VA_VB, VA_MEM,
    };
    const uint32_t as = 1;
    uint64_t misses, buf_va;
    Vm m;
    Pg *p;

    vm_start(&m);
    p = m.p;
    vm_scene_data(dst, src, depth, tex, vb);

    /* Physical mode */
    vram_write(p, phys.dst, dst, sizeof(dst));
    vram_write(p, phys.src, src, sizeof(src));
    vram_write(p, phys.depth, depth, sizeof(depth));
    vram_write(p, phys.tex, tex, sizeof(tex));
    vram_write(p, phys.vb, vb, sizeof(vb));
    vm_writeq(p, phys.mem + 8, 0);
    vm_writeq(p, phys.mem + 16, 7);
    vm_scene_build(p, &phys);
    pb_queue(p);
    ring_kick(p);
    pg_wait(p);
    vm_report(p);
    pg_finish(p);
    vram_read(p, phys.dst, pdst, sizeof(pdst));
    vram_read(p, phys.depth, pdepth, sizeof(pdepth));
    g_assert_cmphex(vram_readq(p, phys.mem + 8), ==, 0x1122334455667788ull);

    /* Virtual mode */
    vm_back(&m, as, VA_DST, "vsvs");
    vm_back(&m, as, VA_SRC, "sv");
    vm_back(&m, as, VA_DEPTH, "svv");
    vm_back(&m, as, VA_TEX, "vzs");
    vm_back(&m, as, VA_VB & ~0xfffull, "sv");
    vm_back(&m, as, VA_MEM, "s");
    vm_back(&m, as, VA_BUF, "vs");
    vm_rw(&m, as, VA_DST, dst, sizeof(dst), true);
    vm_rw(&m, as, VA_SRC, src, sizeof(src), true);
    vm_rw(&m, as, VA_DEPTH, depth, sizeof(depth), true);
    vm_rw(&m, as, VA_TEX, tex, sizeof(tex), true);
    vm_rw(&m, as, VA_VB, vb, sizeof(vb), true);
    {
        uint64_t q[3] = { 0, 0, cpu_to_le64(7) };

        vm_rw(&m, as, VA_MEM, q, sizeof(q), true);
    }
    misses = qom_get_u64(p, "x-vm-tlb-misses");
    vm_scene_build(p, &virt);
    /* The buffer straddles its two pages, a command across the border. */
    buf_va = VA_BUF + PG_PAGE - 20;
    vm_run(&m, as, buf_va, 0);
    g_assert_cmpuint(qom_get_u64(p, "x-vm-tlb-misses"), >, misses);
    vm_rw(&m, as, VA_DST, vdst, sizeof(vdst), false);
    vm_rw(&m, as, VA_DEPTH, vdepth, sizeof(vdepth), false);
    assert_bytes(vdst, pdst, sizeof(pdst));
    assert_bytes(vdepth, pdepth, sizeof(pdepth));
    g_assert_cmphex(vm_readl(&m, as, VA_MEM + 8), ==, 0x55667788);
    g_assert_cmphex(vm_readl(&m, as, VA_MEM + 12), ==, 0x11223344);
    /* The physical surfaces did not move. */
    vram_read(p, phys.dst, vdst, sizeof(vdst));
    assert_bytes(vdst, pdst, sizeof(pdst));

    /* The same buffer wholly in system memory, then wholly in VRAM */
    vm_rw(&m, as, VA_DST, dst, sizeof(dst), true);
    vm_rw(&m, as, VA_DEPTH, depth, sizeof(depth), true);
    vm_scene_build(p, &virt);
    vm_run(&m, as, VA_BUF + PG_PAGE, 0);
    vm_rw(&m, as, VA_DST, vdst, sizeof(vdst), false);
    assert_bytes(vdst, pdst, sizeof(pdst));
    vm_rw(&m, as, VA_DST, dst, sizeof(dst), true);
    vm_rw(&m, as, VA_DEPTH, depth, sizeof(depth), true);
    vm_scene_build(p, &virt);
    vm_run(&m, as, VA_BUF, 0);
    vm_rw(&m, as, VA_DST, vdst, sizeof(vdst), false);
    vm_rw(&m, as, VA_DEPTH, vdepth, sizeof(vdepth), false);
    assert_bytes(vdst, pdst, sizeof(pdst));
    assert_bytes(vdepth, pdepth, sizeof(pdepth));

    /* Null pages: DST's writes are dropped, SRC reads zeros. */
    vm_back(&m, as, 0x100000, "zz");
    vm_back(&m, as, 0x110000, "v");
    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DST, 0x100000, VDXG_FMT_XRGB8888, 16, 16, 512);
    rd_fill(p, 0, 0, 16, 16, 0xffffffff);
    rd_mem(p, VDXG_RD_FENCE, 0x100ff8, 99);
    rd_set_surface(p, VDXG_SLOT_SRC, 0x100000, VDXG_FMT_ARGB8888, 16, 16, 512);
    rd_set_surface(p, VDXG_SLOT_DST, 0x110000, VDXG_FMT_ARGB8888, 16, 16, 64);
    rd_fill(p, 0, 0, 16, 16, 0x12345678);
    rd_copy(p, 0, 0, 2, 3, 10, 10);
    vm_run(&m, as, VA_BUF, 0);
    g_assert_cmphex(vm_readl(&m, as, 0x110000), ==, 0x12345678);
    g_assert_cmphex(vm_readl(&m, as, 0x110000 + 3 * 64 + 8), ==, 0);
    g_assert_cmphex(vm_readl(&m, as, 0x110000 + 12 * 64 + 44), ==, 0);
    g_assert_cmphex(vm_readl(&m, as, 0x110000 + 13 * 64 + 48), ==,
                    0x12345678);
    vm_stop(&m);
}

/* A surface over non-contiguous VRAM pages: every pixel lands right. */
static void test_vm_scattered(void)
{
    const uint32_t as = 2, w = 700, h = 9, pitch = 2816;
    g_autofree uint8_t *got = g_malloc(pitch * h);
    uint32_t x, y, want;
    Vm m;
    Pg *p;

    vm_start(&m);
    p = m.p;
    /* 2816 x 9: rows start at all offsets of seven pages, out of order */
    vm_back(&m, as, VA_DST, "vvvvvvv");
    vm_back(&m, as, VA_BUF, "v");
    memset(got, 0x5a, pitch * h);
    vm_rw(&m, as, VA_DST, got, pitch * h, true);
    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DST, VA_DST, VDXG_FMT_XRGB8888, w, h, pitch);
    rd_fill(p, 1, 0, w - 2, h, 0x00abcdef);
    rd_set_surface(p, VDXG_SLOT_SRC, VA_DST, VDXG_FMT_XRGB8888, w, h, pitch);
    rd_fill(p, 0, 0, 1, h, 0x00010203);
    rd_copy(p, 0, 0, w - 1, 0, 1, h);
    vm_run(&m, as, VA_BUF, 0);
    vm_rw(&m, as, VA_DST, got, pitch * h, false);
    for (y = 0; y < h; y++) {
        for (x = 0; x < pitch / 4; x++) {
            want = x == 0 || x == w - 1 ? 0xff010203 :
                   x < w ? 0xffabcdef : 0x5a5a5a5a;
            g_assert_cmphex((uint32_t)ldl_le_p(got + y * pitch + x * 4), ==,
                            want);
        }
    }
    vm_stop(&m);
}

/* Faults of virtual-mode entries, each halting RENDER alone */
static void test_vm_faults(void)
{
    const uint32_t as = 1;
    uint64_t pte;
    Vm m;
    Pg *p;

    vm_start(&m);
    p = m.p;
    vm_back(&m, as, VA_BUF, "vx");
    vm_back(&m, as, VA_MEM, "vr");
    vm_back(&m, 2, VA_BUF, "v");
    vm_back(&m, 2, VA_DST, "v");

    /* A write to a page that is not present, then to a read-only one */
    vm_back(&m, as, VA_DST, "vn");
    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DST, VA_DST, VDXG_FMT_XRGB8888, 64, 8, 1024);
    rd_fill(p, 0, 0, 64, 8, 0x00ff0000);
    vm_queue(&m, as, VA_BUF, 0);
    vm_fault(&m, VDXG_FAULT_VM_NOT_PRESENT, VDXG_RD_FILL_RECT,
             VA_DST + PG_PAGE, as, VDXG_ACCESS_WRITE);
    /* The rows before it are written. */
    g_assert_cmphex(vm_readl(&m, as, VA_DST + 3 * 1024 + 63 * 4), ==,
                    0xffff0000);
    vm_back(&m, as, VA_DST + PG_PAGE, "r");
    rd_set_surface(p, VDXG_SLOT_DST, VA_DST, VDXG_FMT_XRGB8888, 64, 8, 1024);
    rd_fill(p, 0, 0, 64, 8, 0x00ff0000);
    vm_queue(&m, as, VA_BUF, 0);
    vm_fault(&m, VDXG_FAULT_VM_READ_ONLY, VDXG_RD_FILL_RECT,
             VA_DST + PG_PAGE, as, VDXG_ACCESS_WRITE);
    /* A read-only page reads: as a copy's source, and for a WAIT */
    rd_set_surface(p, VDXG_SLOT_SRC, VA_DST + PG_PAGE, VDXG_FMT_XRGB8888, 4, 1, 16);
    rd_set_surface(p, VDXG_SLOT_DST, VA_DST, VDXG_FMT_XRGB8888, 4, 1, 16);
    rd_copy(p, 0, 0, 0, 0, 4, 1);
    rd_mem(p, VDXG_RD_WAIT, VA_MEM + PG_PAGE, 0);
    vm_run(&m, as, VA_BUF, 0);
    /* A FENCE to a read-only page */
    rd_mem(p, VDXG_RD_FENCE, VA_MEM + PG_PAGE + 8, 1);
    vm_queue(&m, as, VA_BUF, 0);
    vm_fault(&m, VDXG_FAULT_VM_READ_ONLY, VDXG_RD_FENCE,
             VA_MEM + PG_PAGE + 8, as, VDXG_ACCESS_WRITE);
    /* A vertex buffer that is not there: a read */
    rd_set_surface(p, VDXG_SLOT_DST, VA_DST, VDXG_FMT_XRGB8888, 64, 4, 1024);
    rd_draw(p, 0, 3, 0x1f0000);
    vm_queue(&m, as, VA_BUF, 0);
    vm_fault(&m, VDXG_FAULT_VM_NOT_PRESENT, VDXG_RD_DRAW_TRIANGLES,
             0x1f0000, as, VDXG_ACCESS_READ);
    /* A command buffer on a NO_EXEC page: at the entry's fetch */
    rd_nop(p);
    vm_queue(&m, as, VA_BUF + PG_PAGE, 0);
    vm_fault(&m, VDXG_FAULT_VM_NO_EXEC, RING_OP(as), VA_BUF + PG_PAGE, as,
             VDXG_ACCESS_FETCH);
    /* ... and when the buffer reaches it (no header read: opcode 0) */
    rd_nop(p);
    rd_nop(p);
    rd_nop(p);
    vm_queue(&m, as, VA_BUF + PG_PAGE - 8, 0);
    vm_fault(&m, VDXG_FAULT_VM_NO_EXEC, 0, VA_BUF + PG_PAGE, as,
             VDXG_ACCESS_FETCH);
    /* A system page the bus rejects: ADDRESS at the virtual address */
    vm_map(&m, as, VA_SRC, PTE_SYS(1ull << 47));     /* nothing decodes it */
    rd_mem(p, VDXG_RD_WAIT, VA_SRC + 0x18, 0);
    vm_queue(&m, as, VA_BUF, 0);
    vm_fault(&m, VDXG_FAULT_ADDRESS, VDXG_RD_WAIT, VA_SRC + 0x18, 0, 0);
    /* A surface past 2^48 */
    rd_set_surface(p, VDXG_SLOT_DST, (1ull << 48) - 64, VDXG_FMT_XRGB8888, 16, 2,
           64);
    vm_queue(&m, as, VA_BUF, 0);
    vm_fault(&m, VDXG_FAULT_ADDRESS, VDXG_RD_SET_SURFACE, (1ull << 48) - 64,
             0, 0);
    /* A bad operand reports the command's virtual address. */
    rd_nop(p);
    rd_set_surface(p, 7, VA_DST, VDXG_FMT_XRGB8888, 16, 2, 64);
    vm_queue(&m, as, VA_BUF, 0);
    vm_fault(&m, VDXG_FAULT_PARAM, VDXG_RD_SET_SURFACE, VA_BUF + 4, 0, 0);

    /* Address spaces that are not usable: at the fetch */
    ring_entry(p, VDXG_RING_CMD_VIRTUAL(VM_NUM_AS), 4, VA_BUF, ++p->seqno,
               VM_CTX, 0);
    vm_fault(&m, VDXG_FAULT_VM_NOT_PRESENT, RING_OP(VM_NUM_AS), VA_BUF,
             VM_NUM_AS, VDXG_ACCESS_FETCH);
    ring_entry(p, VDXG_RING_CMD_VIRTUAL(255), 4, VA_BUF, ++p->seqno,
               VM_CTX, 0);
    vm_fault(&m, VDXG_FAULT_VM_NOT_PRESENT, RING_OP(255), VA_BUF, 255,
             VDXG_ACCESS_FETCH);
    vm_writeq(p, VM_AS_TABLE + 3 * 16, 0);
    wr(&p->v, VDXG_REG_VM_TLB_FLUSH, 3);
    ring_entry(p, VDXG_RING_CMD_VIRTUAL(3), 4, VA_BUF, ++p->seqno, VM_CTX, 0);
    vm_fault(&m, VDXG_FAULT_VM_NOT_PRESENT, RING_OP(3), VA_BUF, 3,
             VDXG_ACCESS_FETCH);
    vm_writeq(p, VM_AS_TABLE + 3 * 16, VM_TBL(3, 3) | VDXG_VM_AS_VALID | 2);
    wr(&p->v, VDXG_REG_VM_TLB_FLUSH, 3);
    ring_entry(p, VDXG_RING_CMD_VIRTUAL(3), 4, VA_BUF, ++p->seqno, VM_CTX, 0);
    vm_fault(&m, VDXG_FAULT_VM_BAD_TABLE, RING_OP(3), VA_BUF, 3,
             VDXG_ACCESS_FETCH);
    wr(&p->v, VDXG_REG_VM_CTRL, 0);
    pb_reset(p);
    rd_nop(p);
    vm_rw(&m, as, VA_BUF, p->buf, 4, true);
    pb_reset(p);
    ring_entry(p, VDXG_RING_CMD_VIRTUAL(as), 4, VA_BUF, ++p->seqno, VM_CTX,
               0);
    vm_fault(&m, VDXG_FAULT_VM_NOT_PRESENT, RING_OP(as), VA_BUF, as,
             VDXG_ACCESS_FETCH);
    wr(&p->v, VDXG_REG_VM_CTRL, VDXG_VM_CTRL_ENABLE);

    /* Entry checks: bits 31:16, a bad length, NOP/EXEC keep theirs */
    ring_entry(p, VDXG_RING_CMD_VIRTUAL(as) | 0x10000, 4, VA_BUF, ++p->seqno,
               VM_CTX, 0);
    vm_fault(&m, VDXG_FAULT_OPCODE, VDXG_FAULT_OPCODE_RING |
             VDXG_RING_CMD_VIRTUAL(as), RD_RING + 32, 0, 0);
    ring_entry(p, VDXG_RING_CMD_VIRTUAL(as), 6, VA_BUF, ++p->seqno, VM_CTX,
               0);
    vm_fault(&m, VDXG_FAULT_LENGTH, RING_OP(as), RD_RING + 32, 0, 0);
    ring_entry(p, VDXG_RING_CMD_EXEC | 0x100, 4, RD_VMEM, ++p->seqno, VM_CTX,
               0);
    vm_fault(&m, VDXG_FAULT_OPCODE, VDXG_FAULT_OPCODE_RING | 0x101,
             RD_RING + 32, 0, 0);
    ring_entry(p, VDXG_RING_CMD_NOP, 0, 0, ++p->seqno, VM_CTX, 1);
    vm_fault(&m, VDXG_FAULT_RING, VDXG_FAULT_OPCODE_RING, RD_RING + 32, 0,
             0);
    /* A state area past VRAM */
    rd_nop(p);
    vm_queue(&m, as, VA_BUF, PG_VRAM_SIZE / PG_PAGE);
    vm_fault(&m, VDXG_FAULT_ADDRESS, RING_OP(as), PG_VRAM_SIZE, 0, 0);

    /* Other address spaces work, and so does the PAGING engine */
    rd_set_surface(p, VDXG_SLOT_DST, VA_DST, VDXG_FMT_XRGB8888, 4, 4, 16);
    rd_fill(p, 0, 0, 4, 4, 0x00777777);
    vm_run(&m, 2, VA_BUF, 0);
    g_assert_cmphex(vm_readl(&m, 2, VA_DST + 60), ==, 0xff777777);
    p->eng = VDXG_ENGINE_PAGING;
    p->ring = PG_RING;
    p->fence = PG_FENCE;
    pg_engine_setup(p);
    p->seqno = 0;
    emit_fill_virt(p, 2, VA_DST, 16, 0x600df00d);
    pb_run(p);
    g_assert_cmphex(vm_readl(&m, 2, VA_DST + 12), ==, 0x600df00d);
    /* EXEC_VIRTUAL is no PAGING command. */
    ring_entry(p, VDXG_RING_CMD_VIRTUAL(2), 4, VA_BUF, ++p->seqno, VM_CTX, 0);
    vm_fault(&m, VDXG_FAULT_OPCODE, RING_OP(2), PG_RING + 32, 0, 0);
    /* ... and its dword 7 is reserved there. */
    ring_entry(p, VDXG_RING_CMD_VIRTUAL(2), 4, VA_BUF, ++p->seqno, VM_CTX, 1);
    vm_fault(&m, VDXG_FAULT_RING, RING_OP(2), PG_RING + 32, 0, 0);
    pte = m.pte[as][VA_DST >> 12];
    g_assert_cmphex(pte & VDXG_PTE_VALID, ==, VDXG_PTE_VALID);
    vm_stop(&m);
}

/* State areas */

static void vm_state_init(Pg *p, uint64_t area)
{
    uint8_t z[PG_PAGE] = { 0 };

    stl_le_p(z + VDXG_CTX_STATE_DW_MAGIC * 4, VDXG_CTX_STATE_MAGIC);
    stl_le_p(z + VDXG_CTX_STATE_DW_VERSION * 4, VDXG_CTX_STATE_VERSION);
    vram_write(p, area, z, sizeof(z));
}

static uint32_t vm_slot_dw(Pg *p, uint64_t area, uint32_t slot, uint32_t dw)
{
    return vram_readl(p, area + (VDXG_CTX_STATE_SLOT(slot) + dw) * 4);
}

static void vm_set_slot_dw(Pg *p, uint64_t area, uint32_t slot, uint32_t dw,
                           uint32_t val)
{
    vram_writel(p, area + (VDXG_CTX_STATE_SLOT(slot) + dw) * 4, val);
}

/*
 * Run what is queued with @bytes of budget: the TAIL first, then the hold
 * (a run grants its first quantum before it looks for work: a doorbell
 * after the hold would find it spent by the run the hold schedules).
 */
static void vm_hold_run(Pg *p, uint64_t bytes)
{
    wr(&p->v, EREG(p, VDXG_ENG_RING_TAIL), p->tail);
    pg_hold_after(p, bytes);
}

#define VM_HOLD 2048

/*
 * The state area is work of the entry's: read when it starts, written
 * when it completes, and charged to the engine's budget as such. An entry
 * that binds DST and fills one pixel completes within VM_HOLD (2048)
 * bytes of budget (x-rd-hold-after); with a state area it does not, and
 * holds until the hold is lifted.
 */
static void test_vm_state_cost(void)
{
    const uint32_t as = 1;
    const uint64_t s1 = VM_STATE(0);
    Vm m;
    Pg *p;

    vm_start(&m);
    p = m.p;
    vm_back(&m, as, VA_BUF, "v");
    vm_back(&m, as, VA_DST, "v");
    vm_state_init(p, s1);

    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DST, VA_DST, VDXG_FMT_XRGB8888, 1, 1, 64);
    rd_fill(p, 0, 0, 1, 1, 0x00111111);
    vm_queue(&m, as, VA_BUF, 0);
    vm_hold_run(p, VM_HOLD);
    pg_finish(p);
    pg_hold_after(p, 0);
    g_assert_cmphex(vm_readl(&m, as, VA_DST), ==, 0xff111111);

    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DST, VA_DST, VDXG_FMT_XRGB8888, 1, 1, 64);
    rd_fill(p, 0, 0, 1, 1, 0x00222222);
    vm_queue(&m, as, VA_BUF, s1 >> 12);
    vm_hold_run(p, VM_HOLD);
    pg_wait_held(p);
    g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO)), ==,
                    p->seqno - 1);
    pg_hold_after(p, 0);
    pg_finish(p);
    g_assert_cmphex(vm_readl(&m, as, VA_DST), ==, 0xff222222);
    g_assert_cmphex(vm_slot_dw(p, s1, VDXG_SLOT_DST, VDXG_CTX_SLOT_DW_BOUND),
                    ==, 1);
    g_assert_cmphex(rd(&p->v, VDXG_REG_FAULT_STATUS), ==, 0);
    vm_stop(&m);
}

/* Slots persist from one entry to the next through the state area only. */
static void test_vm_state(void)
{
    const uint32_t as = 1;
    const uint64_t s1 = VM_STATE(0), s2 = VM_STATE(1);
    uint8_t before[PG_PAGE], after[PG_PAGE];
    Vm m;
    Pg *p;

    vm_start(&m);
    p = m.p;
    vm_back(&m, as, VA_BUF, "v");
    vm_back(&m, as, VA_DST, "vs");
    vm_back(&m, as, VA_TEX, "v");
    vm_state_init(p, s1);
    vm_state_init(p, s2);
    /* INIT_CONTEXT_RESOURCE's state: the same as the CPU's */
    p->eng = VDXG_ENGINE_PAGING;
    p->ring = PG_RING;
    p->fence = PG_FENCE;
    pg_engine_setup(p);
    emit_icr(p, s2);
    pb_run(p);
    p->eng = VDXG_ENGINE_RENDER;
    p->ring = RD_RING;
    p->fence = RD_FENCE;
    p->seqno = 0;
    pg_engine_setup(p);

    /* Entry 1 binds DST and TEXTURE; the area holds them after it. */
    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DST, VA_DST + 8, VDXG_FMT_XRGB8888, 100, 3, 2048);
    rd_set_surface(p, VDXG_SLOT_TEXTURE, VA_TEX, VDXG_FMT_RGB565, 8, 8, 16);
    rd_fill(p, 0, 0, 100, 3, 0x00111111);
    vm_run(&m, as, VA_BUF, s1 >> 12);
    g_assert_cmphex(vm_slot_dw(p, s1, VDXG_SLOT_DST, VDXG_CTX_SLOT_DW_BOUND),
                    ==, 1);
    g_assert_cmphex(vm_slot_dw(p, s1, VDXG_SLOT_DST, VDXG_CTX_SLOT_DW_ADDR),
                    ==, VA_DST + 8);
    g_assert_cmphex(vm_slot_dw(p, s1, VDXG_SLOT_DST,
                               VDXG_CTX_SLOT_DW_ADDR + 1), ==, 0);
    g_assert_cmphex(vm_slot_dw(p, s1, VDXG_SLOT_DST,
                               VDXG_CTX_SLOT_DW_FORMAT), ==,
                    VDXG_FMT_XRGB8888);
    g_assert_cmphex(vm_slot_dw(p, s1, VDXG_SLOT_DST, VDXG_CTX_SLOT_DW_WIDTH),
                    ==, 100);
    g_assert_cmphex(vm_slot_dw(p, s1, VDXG_SLOT_DST,
                               VDXG_CTX_SLOT_DW_HEIGHT), ==, 3);
    g_assert_cmphex(vm_slot_dw(p, s1, VDXG_SLOT_DST, VDXG_CTX_SLOT_DW_PITCH),
                    ==, 2048);
    g_assert_cmphex(vm_slot_dw(p, s1, VDXG_SLOT_DST, VDXG_CTX_SLOT_DW_RSVD),
                    ==, 0);
    g_assert_cmphex(vm_slot_dw(p, s1, VDXG_SLOT_TEXTURE,
                               VDXG_CTX_SLOT_DW_FORMAT), ==, VDXG_FMT_RGB565);
    g_assert_cmphex(vm_slot_dw(p, s1, VDXG_SLOT_SRC, VDXG_CTX_SLOT_DW_BOUND),
                    ==, 0);
    g_assert_cmphex(vram_readl(p, s1), ==, VDXG_CTX_STATE_MAGIC);

    /* Entry 2, same area: DST is still bound. */
    rd_fill(p, 1, 1, 98, 1, 0x00222222);
    vm_run(&m, as, VA_BUF, s1 >> 12);
    g_assert_cmphex(vm_readl(&m, as, VA_DST + 8 + 2048 + 4), ==, 0xff222222);
    g_assert_cmphex(vm_readl(&m, as, VA_DST + 8 + 2048), ==, 0xff111111);
    /* A row across the page border */
    g_assert_cmphex(vm_readl(&m, as, VA_DST + 8 + 2 * 2048 + 99 * 4), ==,
                    0xff111111);

    /* Without an area, or with another context's, nothing is bound. */
    rd_fill(p, 0, 0, 1, 1, 0);
    vm_queue(&m, as, VA_BUF, 0);
    vm_fault(&m, VDXG_FAULT_PARAM, VDXG_RD_FILL_RECT, VA_BUF, 0, 0);
    rd_fill(p, 0, 0, 1, 1, 0);
    vm_queue(&m, as, VA_BUF, s2 >> 12);
    vm_fault(&m, VDXG_FAULT_PARAM, VDXG_RD_FILL_RECT, VA_BUF, 0, 0);
    /* ... nor in a physical-mode entry */
    rd_fill(p, 0, 0, 1, 1, 0);
    pb_queue(p);
    ring_kick(p);
    pg_expect_fault(p, VDXG_FAULT_PARAM, VDXG_RD_FILL_RECT, p->buf_gpu,
                    PG_CONTEXT);
    pb_reset(p);

    /* A faulting entry stores nothing: s1 keeps what entry 2 left. */
    vram_read(p, s1, before, sizeof(before));
    rd_set_surface(p, VDXG_SLOT_SRC, VA_TEX, VDXG_FMT_RGB565, 8, 8, 16);
    rd_set_surface(p, VDXG_SLOT_DST, 0x1f0000, VDXG_FMT_RGB565, 8, 8, 16);
    rd_fill(p, 0, 0, 8, 8, 0);
    vm_queue(&m, as, VA_BUF, s1 >> 12);
    vm_fault(&m, VDXG_FAULT_VM_NOT_PRESENT, VDXG_RD_FILL_RECT, 0x1f0000, as,
             VDXG_ACCESS_WRITE);
    vram_read(p, s1, after, sizeof(after));
    assert_bytes(after, before, sizeof(before));

    /* Rebinding replaces, the rest of the page stays as it was */
    vram_writel(p, s1 + 36 * 4, 0xfeedface);
    rd_set_surface(p, VDXG_SLOT_DST, VA_TEX, VDXG_FMT_RGB565, 8, 8, 16);
    rd_fill(p, 0, 0, 8, 8, 0xff0000);
    vm_run(&m, as, VA_BUF, s1 >> 12);
    g_assert_cmphex(vm_slot_dw(p, s1, VDXG_SLOT_DST, VDXG_CTX_SLOT_DW_ADDR),
                    ==, VA_TEX);
    g_assert_cmphex(vm_slot_dw(p, s1, VDXG_SLOT_DST, VDXG_CTX_SLOT_DW_PITCH),
                    ==, 16);
    g_assert_cmphex(vm_slot_dw(p, s1, VDXG_SLOT_TEXTURE,
                               VDXG_CTX_SLOT_DW_BOUND), ==, 1);
    g_assert_cmphex(vram_readl(p, s1 + 36 * 4), ==, 0xfeedface);
    g_assert_cmphex(vm_readl(&m, as, VA_TEX), ==, 0xf800f800);
    /* s2 stayed as INIT_CONTEXT_RESOURCE left it. */
    g_assert_cmphex(vm_slot_dw(p, s2, VDXG_SLOT_DST, VDXG_CTX_SLOT_DW_BOUND),
                    ==, 0);
    vm_stop(&m);
}

/* The 3D pipeline in virtual mode: its state between entries */

static void vm3d_prog(Vm *m, uint32_t as, uint64_t va, uint32_t stage,
                      const uint32_t (*in)[4], uint32_t n)
{
    uint8_t b[16 * 8] = { 0 };
    uint32_t i, j;

    g_assert_cmpuint(n, <, 8);
    stl_le_p(b, VDXG_3D_PROGRAM_MAGIC);
    stl_le_p(b + 4, stage);
    stl_le_p(b + 8, n);
    for (i = 0; i < n; i++) {
        for (j = 0; j < 4; j++) {
            stl_le_p(b + 16 + i * 16 + j * 4, in[i][j]);
        }
    }
    vm_rw(m, as, va, b, 16 * (1 + n), true);
}

static void vm3d_reg(Pg *p, uint32_t reg, uint32_t val)
{
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_STATE, VDXG_RD_SET_STATE_LEN(1)));
    pb_dw(p, reg);
    pb_dw(p, val);
}

static uint32_t vm3d_f(float f)
{
    uint32_t u;

    memcpy(&u, &f, 4);
    return u;
}

/*
 * Entry 1 binds programs, a vertex buffer across a VRAM and a system page
 * and DST across two kinds of pages, sets the registers, and draws
 * nothing; the state area holds it all after it. Entry 2 only draws: a
 * full-screen quad of one colour from the state the area gave it. An
 * area whose program is bad faults SHADER at its dword, one whose
 * register is bad PARAM at the area; an entry without the area has
 * nothing bound.
 */
static void test_vm_3d_state(void)
{
    static const uint32_t vs[][4] = {
        { VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 0, 0xf),
          VDXG_SRC(VDXG_FILE_INPUT, 0, VDXG_SWIZZLE_XYZW), 0, 0 },
        { VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 2, 0xf),
          VDXG_SRC(VDXG_FILE_INPUT, 1, VDXG_SWIZZLE_XYZW), 0, 0 },
        { VDXG_OP_END, 0, 0, 0 },
    };
    static const uint32_t fs[][4] = {
        { VDXG_INSN(VDXG_OP_MOV, VDXG_FILE_OUTPUT, 0, 0xf),
          VDXG_SRC(VDXG_FILE_INPUT, 0, VDXG_SWIZZLE_XYZW), 0, 0 },
        { VDXG_OP_END, 0, 0, 0 },
    };
    static const uint32_t fs_tex[][4] = {
        { VDXG_INSN(VDXG_OP_TEX, VDXG_FILE_OUTPUT, 0, 0xf),
          VDXG_SRC(VDXG_FILE_INPUT, 0, VDXG_SWIZZLE_XYZW), 0, 0 },
        { VDXG_OP_END, 0, 0, 0 },
    };
    static const float xy[6][2] = {
        { -1, -1 }, { 1, -1 }, { 1, 1 }, { -1, -1 }, { 1, 1 }, { -1, 1 },
    };
    const float col[4] = { 1.0f / 3, 2.0f / 3, 0.6f, 0.2f };
    const uint32_t as = 2;
    const uint64_t s1 = VM_STATE(4), s2 = VM_STATE(5);
    const uint64_t va_vs = VA_MEM, va_fs = VA_MEM + 0x100;
    const uint64_t va_dst = VA_DST + 2048;
    uint8_t vb[6 * 32];
    uint32_t i, j, x, y, hdr;
    Vm m;
    Pg *p;

    vm_start(&m);
    p = m.p;
    vm_back(&m, as, VA_BUF, "v");
    vm_back(&m, as, VA_DST, "vs");
    vm_back(&m, as, VA_MEM, "v");
    vm_back(&m, as, VA_VB & ~0xfffull, "vs");
    vm3d_prog(&m, as, va_vs, 0, vs, ARRAY_SIZE(vs));
    vm3d_prog(&m, as, va_fs, 1, fs, ARRAY_SIZE(fs));
    for (i = 0; i < 6; i++) {
        for (j = 0; j < 4; j++) {
            stl_le_p(vb + i * 32 + j * 4,
                     vm3d_f(j < 2 ? xy[i][j] : j == 2 ? 0 : 1));
            stl_le_p(vb + i * 32 + 16 + j * 4, vm3d_f(col[j]));
        }
    }
    vm_rw(&m, as, VA_VB, vb, sizeof(vb), true);
    vm_state_init(p, s1);

    /* Entry 1: state only */
    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DST, va_dst, VDXG_FMT_ARGB8888, 32, 32, 128);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_SHADER, VDXG_RD_SET_SHADER_LEN));
    pb_dw(p, 0);
    pb_qw(p, va_vs);
    pb_dw(p, 64);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_SHADER, VDXG_RD_SET_SHADER_LEN));
    pb_dw(p, 1);
    pb_qw(p, va_fs);
    pb_dw(p, 48);
    vm3d_reg(p, VDXG_3D_VIEWPORT_SCALE(0), vm3d_f(16));
    vm3d_reg(p, VDXG_3D_VIEWPORT_SCALE(1), vm3d_f(16));
    vm3d_reg(p, VDXG_3D_VIEWPORT_TRANSLATE(0), vm3d_f(16));
    vm3d_reg(p, VDXG_3D_VIEWPORT_TRANSLATE(1), vm3d_f(16));
    vm3d_reg(p, VDXG_3D_ELEMENT(0),
             VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 3, 0));
    vm3d_reg(p, VDXG_3D_ELEMENT(1),
             VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 3, 16));
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_VERTEX_BUFFER,
                         VDXG_RD_SET_VERTEX_BUFFER_LEN));
    pb_dw(p, 3);
    pb_qw(p, VA_VB);
    pb_dw(p, sizeof(vb));
    pb_dw(p, 32);
    vm_run(&m, as, VA_BUF, s1 >> 12);
    g_assert_cmphex(vram_readl(p, s1 + (VDXG_CTX_STATE_DW_REGS +
                                        VDXG_3D_VIEWPORT_SCALE(0)) * 4), ==,
                    vm3d_f(16));
    g_assert_cmphex(vram_readl(p, s1 + (VDXG_CTX_STATE_DW_REGS +
                                        VDXG_3D_ELEMENT(1)) * 4), ==,
                    VDXG_ELEMENT(VDXG_VFMT(VDXG_VTYPE_FLOAT32, 4), 3, 16));
    g_assert_cmphex(vram_readl(p, s1 + VDXG_CTX_STATE_DW_PROGRAM(1) * 4), ==,
                    1);
    g_assert_cmphex(vram_readq(p, s1 + (VDXG_CTX_STATE_DW_PROGRAM(1) + 1) *
                               4), ==, va_fs);
    g_assert_cmphex(vram_readl(p, s1 + (VDXG_CTX_STATE_DW_PROGRAM(1) + 3) *
                               4), ==, 48);
    g_assert_cmphex(vram_readl(p, s1 + VDXG_CTX_STATE_DW_VB(3) * 4), ==, 32);
    g_assert_cmphex(vram_readq(p, s1 + (VDXG_CTX_STATE_DW_VB(3) + 1) * 4), ==,
                    VA_VB);
    g_assert_cmphex(vram_readl(p, s1 + (VDXG_CTX_STATE_DW_VB(3) + 3) * 4), ==,
                    sizeof(vb));

    /* Entry 2: the draw alone, from the area's state */
    pb_reset(p);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_DRAW, VDXG_RD_DRAW_LEN));
    pb_dw(p, VDXG_PRIM_TRIANGLES);
    pb_dw(p, 0);
    pb_dw(p, 6);
    vm_run(&m, as, VA_BUF, s1 >> 12);
    for (y = 0; y < 32; y += 3) {
        for (x = 0; x < 32; x += 5) {
            g_assert_cmphex(vm_readl(&m, as, va_dst + y * 128 + x * 4), ==,
                            0x3355aa99);
        }
    }

    /* Without the area nothing is bound: PARAM at the draw */
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_DRAW, VDXG_RD_DRAW_LEN));
    pb_dw(p, VDXG_PRIM_TRIANGLES);
    pb_dw(p, 0);
    pb_dw(p, 6);
    vm_queue(&m, as, VA_BUF, 0);
    vm_fault(&m, VDXG_FAULT_PARAM, VDXG_RD_DRAW, VA_BUF, 0, 0);

    /*
     * A texture on a page that is not present: the first texel sampled,
     * (1, 2) of 4x4 for (1/3, 2/3), faults VM_NOT_PRESENT at its address
     */
    vm_back(&m, as, VA_TEX, "n");
    vm3d_prog(&m, as, va_fs + 0x80, 1, fs_tex, ARRAY_SIZE(fs_tex));
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_SHADER, VDXG_RD_SET_SHADER_LEN));
    pb_dw(p, 1);
    pb_qw(p, va_fs + 0x80);
    pb_dw(p, 48);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_SET_TEXTURE, VDXG_RD_SET_TEXTURE_LEN));
    pb_dw(p, 0);
    pb_qw(p, VA_TEX);
    pb_dw(p, 64);
    pb_dw(p, VDXG_TEX_DESC(VDXG_FMT_ARGB8888, 1, 0));
    pb_dw(p, 4 | 4 << 16);
    pb_dw(p, VDXG_PG_HDR(VDXG_RD_DRAW, VDXG_RD_DRAW_LEN));
    pb_dw(p, VDXG_PRIM_TRIANGLES);
    pb_dw(p, 0);
    pb_dw(p, 6);
    vm_queue(&m, as, VA_BUF, s1 >> 12);
    vm_fault(&m, VDXG_FAULT_VM_NOT_PRESENT, VDXG_RD_DRAW, VA_TEX + 2 * 16 + 4,
             as, VDXG_ACCESS_READ);

    /* The area's program is read and checked again: a bad one, SHADER */
    for (i = 0; i < PG_PAGE; i += 4) {
        vram_writel(p, s2 + i, vram_readl(p, s1 + i));
    }
    hdr = vm_readl(&m, as, va_fs + 16);
    vm_rw(&m, as, va_fs + 16, &(uint32_t){ cpu_to_le32(0xff) }, 4, true);
    pb_reset(p);
    rd_nop(p);
    vm_queue(&m, as, VA_BUF, s2 >> 12);
    vm_fault(&m, VDXG_FAULT_SHADER, RING_OP(as), va_fs + 16, 0, 0);
    vm_rw(&m, as, va_fs + 16, &(uint32_t){ cpu_to_le32(hdr) }, 4, true);
    /* A bad register value in the area: PARAM at the area */
    vram_writel(p, s2 + (VDXG_CTX_STATE_DW_REGS + VDXG_3D_BLEND) * 4,
                VDXG_BLEND_RGB_EQ(7));
    rd_nop(p);
    vm_queue(&m, as, VA_BUF, s2 >> 12);
    vm_fault(&m, VDXG_FAULT_PARAM, RING_OP(as), s2, 0, 0);
    vm_stop(&m);
}

/* State areas whose content SET_SURFACE would not take: PARAM, at once */
static void test_vm_state_bad(void)
{
    static const struct {
        uint32_t slot, dw, val;
    } bad[] = {
        { 0, VDXG_CTX_SLOT_DW_BOUND, 2 },
        { 1, VDXG_CTX_SLOT_DW_RSVD, 1 },
        { 2, VDXG_CTX_SLOT_DW_WIDTH, 5 },       /* unset, not zero */
        { 0, VDXG_CTX_SLOT_DW_FORMAT, VDXG_FMT_L8 },  /* bad format */
        { 0, VDXG_CTX_SLOT_DW_FORMAT, VDXG_FMT_D32 },
        { 2, VDXG_CTX_SLOT_DW_FORMAT, VDXG_FMT_XRGB8888 },
        { 0, VDXG_CTX_SLOT_DW_WIDTH, 0 },
        { 0, VDXG_CTX_SLOT_DW_HEIGHT, 8193 },
        { 0, VDXG_CTX_SLOT_DW_PITCH, 6 },
        { 0, VDXG_CTX_SLOT_DW_ADDR, 2 },        /* not pixel aligned */
        { 0, VDXG_CTX_SLOT_DW_ADDR + 1, 0x10000 },  /* past 2^48 */
        { 0, VDXG_CTX_SLOT_DW_ADDR + 1, 0xffff },   /* ends past 2^48 */
    };
    const uint32_t as = 1;
    const uint64_t s = VM_STATE(2);
    unsigned int i;
    Vm m;
    Pg *p;

    vm_start(&m);
    p = m.p;
    vm_back(&m, as, VA_BUF, "v");
    vm_back(&m, as, VA_DST, "v");

    for (i = 0; i < ARRAY_SIZE(bad) + 3; i++) {
        vm_state_init(p, s);
        /* A good DST and DEPTH, then one bad dword */
        vm_set_slot_dw(p, s, 0, VDXG_CTX_SLOT_DW_BOUND, 1);
        vm_set_slot_dw(p, s, 0, VDXG_CTX_SLOT_DW_ADDR, 0xffffff04);
        vm_set_slot_dw(p, s, 0, VDXG_CTX_SLOT_DW_FORMAT, VDXG_FMT_ARGB8888);
        vm_set_slot_dw(p, s, 0, VDXG_CTX_SLOT_DW_WIDTH, 64);
        vm_set_slot_dw(p, s, 0, VDXG_CTX_SLOT_DW_HEIGHT, 1);
        vm_set_slot_dw(p, s, 0, VDXG_CTX_SLOT_DW_PITCH, 256);
        if (i < ARRAY_SIZE(bad)) {
            vm_set_slot_dw(p, s, bad[i].slot, bad[i].dw, bad[i].val);
        } else if (i == ARRAY_SIZE(bad)) {
            vram_writel(p, s, VDXG_CTX_STATE_MAGIC + 1);
        } else if (i == ARRAY_SIZE(bad) + 1) {
            vram_writel(p, s + 4, VDXG_CTX_STATE_VERSION + 1);
        } else {
            /* The good state: VA 0xffffff04 is not mapped. */
            pb_reset(p);
            rd_fill(p, 0, 0, 64, 1, 0);
            vm_queue(&m, as, VA_BUF, s >> 12);
            vm_fault(&m, VDXG_FAULT_VM_NOT_PRESENT, VDXG_RD_FILL_RECT,
                     0xffffff04, as, VDXG_ACCESS_WRITE);
            break;
        }
        g_test_message("bad state %u", i);
        pb_reset(p);
        rd_nop(p);
        vm_queue(&m, as, VA_BUF, s >> 12);
        vm_fault(&m, VDXG_FAULT_PARAM, RING_OP(as), s, 0, 0);
        /* Nothing stored */
        g_assert_cmphex(vm_slot_dw(p, s, 0, VDXG_CTX_SLOT_DW_ADDR), ==,
                        i < ARRAY_SIZE(bad) && bad[i].slot == 0 &&
                        bad[i].dw == VDXG_CTX_SLOT_DW_ADDR ? bad[i].val :
                        0xffffff04);
    }
    vm_stop(&m);
}

/*
 * A virtual-mode fill of 8 MiB over 2 MiB pages runs in several slices;
 * clearing ENABLE pauses it in the middle, and it resumes. The engine is
 * held 2 MiB into the fill (of about 16 MiB of work), paused there and
 * let go, whatever the host's speed.
 */
static void test_vm_sliced(void)
{
    const uint32_t as = 1, w = 2048, h = 1024;
    const uint64_t big = 0x400000;      /* VRAM, 2 MiB aligned: 8 MiB */
    const uint64_t va = 4 * 2 * MiB;    /* level-1 entries 4 to 7 */
    uint64_t runs, i;
    uint32_t last;
    Vm m;
    Pg *p;

    vm_start(&m);
    p = m.p;
    for (i = 0; i < 4; i++) {
        vm_writeq(p, VM_TBL(as, 1) + (4 + i) * 8,
                  PTE_VRAM(big + i * 2 * MiB) | VDXG_PTE_LARGE);
    }
    vm_back(&m, as, VA_BUF, "s");
    vm_back(&m, as, VA_MEM, "v");
    vm_state_init(p, VM_STATE(0));
    runs = qom_get_u64(p, "x-rd-bh-runs");
    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DST, va, VDXG_FMT_XRGB8888, w, h, w * 4);
    rd_fill(p, 0, 0, w, h, 0x00c0ffee);
    rd_set_surface(p, VDXG_SLOT_SRC, va, VDXG_FMT_XRGB8888, w, h, w * 4);
    rd_blend(p, 0, 0, 1, 1, w - 1, h - 1, 0);
    rd_mem(p, VDXG_RD_FENCE, VA_MEM, 0xabc);
    vm_queue(&m, as, VA_BUF, VM_STATE(0) >> 12);
    last = vram_readl(p, big + 8 * MiB - 4);
    g_assert_cmphex(last, !=, 0xffc0ffee);
    pg_hold_after(p, 2 * MiB);
    ring_kick(p);
    pg_wait_held(p);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), 0);
    pg_hold_after(p, 0);
    for (i = 0; i < 5; i++) {
        qtest_clock_step(p->v.qts, 1000000);
        g_assert_cmphex(rd(&p->v, EREG(p, VDXG_ENG_STATUS)), ==, 0);
    }
    g_assert_cmphex(rd64(&p->v, EREG(p, VDXG_ENG_FENCE_VALUE_LO)), ==, 0);
    /* In the fill: its first pixel written, its last not */
    g_assert_cmphex(vram_readl(p, big), ==, 0xffc0ffee);
    g_assert_cmphex(vram_readl(p, big + 8 * MiB - 4), ==, last);
    wr(&p->v, EREG(p, VDXG_ENG_CTRL), VDXG_ENG_CTRL_ENABLE);
    pg_finish(p);
    g_assert_cmpuint(qom_get_u64(p, "x-rd-bh-runs") - runs, >=, 4);
    g_assert_cmphex(vram_readl(p, big), ==, 0xffc0ffee);
    g_assert_cmphex(vram_readl(p, big + 3 * MiB + 4), ==, 0xffc0ffee);
    g_assert_cmphex(vram_readl(p, big + 8 * MiB - 4), ==, 0xffc0ffee);
    g_assert_cmphex(vm_readl(&m, as, VA_MEM), ==, 0xabc);
    g_assert_cmphex(vm_slot_dw(p, VM_STATE(0), VDXG_SLOT_SRC,
                               VDXG_CTX_SLOT_DW_WIDTH), ==, w);

    /*
     * Pixel by pixel over system pages (a blend: three bus accesses a
     * pixel): the slices stay short.
     */
    {
        const uint32_t bw = 256, bh = 512;
        g_autofree uint32_t *px = g_new(uint32_t, bw * bh);
        char kinds[129];

        memset(kinds, 's', 128);
        kinds[128] = 0;
        vm_back(&m, as, 0x80000, kinds);
        vm_back(&m, as, 0x100000, kinds);
        for (i = 0; i < bw * bh; i++) {
            px[i] = cpu_to_le32(0xff112233);
        }
        vm_rw(&m, as, 0x80000, px, bw * bh * 4, true);
        for (i = 0; i < bw * bh; i++) {
            px[i] = cpu_to_le32(0x80000000 | i);
        }
        vm_rw(&m, as, 0x100000, px, bw * bh * 4, true);
        pb_reset(p);
        rd_set_surface(p, VDXG_SLOT_SRC, 0x80000, VDXG_FMT_ARGB8888, bw, bh, bw * 4);
        rd_set_surface(p, VDXG_SLOT_DST, 0x100000, VDXG_FMT_ARGB8888, bw, bh,
               bw * 4);
        rd_blend(p, 0, 0, 0, 0, bw, bh - 1, 255);
        runs = qom_get_u64(p, "x-rd-bh-runs");
        qobject_unref(qtest_qmp(p->v.qts, "{ 'execute': 'qom-set', "
                                "'arguments': { 'path': "
                                "'/machine/peripheral/gpu', 'property': "
                                "'x-max-slice-cpu-ns', 'value': 0 } }"));
        vm_run(&m, as, VA_BUF, 0);
        g_test_message("blend of %u pixels over system pages: %" PRIu64
                       " runs, x-max-slice-cpu-ns %" PRIu64, bw * (bh - 1),
                       qom_get_u64(p, "x-rd-bh-runs") - runs,
                       qom_get_u64(p, "x-max-slice-cpu-ns"));
        g_assert_cmpuint(qom_get_u64(p, "x-rd-bh-runs") - runs, >=, 2);
        g_assert_cmpuint(qom_get_u64(p, "x-max-slice-cpu-ns"), <,
                         5 * 1000 * 1000);
        vm_rw(&m, as, 0x100000, px, bw * bh * 4, false);
        for (i = 0; i < bw * bh; i++) {
            g_assert_cmphex(le32_to_cpu(px[i]), ==,
                            i < bw * (bh - 1) ? 0xff112233 : 0x80000000 | i);
        }
    }
    vm_stop(&m);
}

/*
 * Migration of an entry in progress, stopped in a WAIT: its address
 * space, its bindings and its state area come along.
 */
/* The ring state of the engine a test is not driving, kept apart */
typedef struct EngRing {
    uint32_t eng;
    uint64_t ring;
    uint64_t fence;
    uint64_t seqno;
    uint32_t tail;
} EngRing;

/* Drive the engine of @o from now on, and keep the current one in @o. */
static void eng_swap(Pg *p, EngRing *o)
{
    EngRing cur = { p->eng, p->ring, p->fence, p->seqno, p->tail };

    p->eng = o->eng;
    p->ring = o->ring;
    p->fence = o->fence;
    p->seqno = o->seqno;
    p->tail = o->tail;
    *o = cur;
}

/* A RENDER entry in address space 0 writing @value at @va */
static void vm_render_fence(Vm *m, uint64_t va, uint64_t value)
{
    pb_reset(m->p);
    rd_fence(m->p, va, value);
    vm_run(m, 0, VA_BUF, 0);
}

/*
 * Each engine has a TLB of its own: a translation the RENDER engine has
 * cached stays its own (the PAGING engine walks the table and sees an
 * entry changed without a flush, the RENDER engine does not), and a
 * FLUSH_VM_TLB on the PAGING engine drops the RENDER engine's too.
 */
static void test_vm_tlb_engines(void)
{
    EngRing pg = { VDXG_ENGINE_PAGING, PG_RING, PG_FENCE, 0, 0 };
    const uint64_t a = VM_PHYS, b = VM_PHYS + PG_PAGE;
    uint64_t zero[2] = { 0, 0 };
    Vm m;
    Pg *p;

    vm_start(&m);
    p = m.p;
    vm_back(&m, 0, VA_BUF, "v");
    vram_write(p, a, zero, sizeof(zero));
    vram_write(p, b, zero, sizeof(zero));
    vram_writel(p, a, 0xaaaa);
    vram_writel(p, b, 0xbbbb);
    vm_map(&m, 0, VA_MEM, PTE_VRAM(a));

    /* RENDER caches VA_MEM -> A. */
    vm_render_fence(&m, VA_MEM + 8, 1);
    g_assert_cmphex(vram_readq(p, a + 8), ==, 1);

    /* The entry now says B, with no flush: PAGING walks, and reads B. */
    vm_writeq(p, VM_TBL(0, 0) + (VA_MEM >> 12) * 8, PTE_VRAM(b));
    eng_swap(p, &pg);
    pb_reset(p);
    emit_xfer_virt(p, 0, VDXG_PG_XV_DST_PHYS, 4, VA_MEM, PG_PEEK);
    pb_run(p);
    g_assert_cmphex(vram_readl(p, PG_PEEK), ==, 0xbbbb);
    eng_swap(p, &pg);

    /* RENDER still writes A, through its own cached translation. */
    vm_render_fence(&m, VA_MEM + 8, 2);
    g_assert_cmphex(vram_readq(p, a + 8), ==, 2);
    g_assert_cmphex(vram_readq(p, b + 8), ==, 0);

    /* A FLUSH_VM_TLB of the space on PAGING: RENDER walks again. */
    eng_swap(p, &pg);
    pb_reset(p);
    emit_flush_vm(p, 0, 0, 0, 0);
    pb_run(p);
    eng_swap(p, &pg);
    vm_render_fence(&m, VA_MEM + 8, 3);
    g_assert_cmphex(vram_readq(p, b + 8), ==, 3);
    g_assert_cmphex(vram_readq(p, a + 8), ==, 2);
    vm_stop(&m);
}

static void test_vm_migration(void)
{
    g_autofree char *tmpdir = g_dir_make_tmp("vdxg-test-XXXXXX", NULL);
    const uint32_t as = 2;
    const uint64_t s = VM_STATE(3);
    Vm m;
    Pg *p;

    g_assert_nonnull(tmpdir);
    vm_start(&m);
    p = m.p;
    vm_back(&m, as, VA_BUF, "v");
    vm_back(&m, as, VA_DST, "sv");
    vm_back(&m, as, VA_MEM, "v");
    vm_state_init(p, s);
    vm_rw(&m, as, VA_MEM, (uint64_t[]) { 0 }, 8, true);
    pb_reset(p);
    rd_set_surface(p, VDXG_SLOT_DST, VA_DST, VDXG_FMT_XRGB8888, 32, 2, 4096);
    rd_fill(p, 0, 0, 32, 2, 0x00010101);
    rd_mem(p, VDXG_RD_WAIT, VA_MEM, 3);
    rd_fill(p, 0, 1, 32, 1, 0x00020202);
    vm_queue(&m, as, VA_BUF, s >> 12);
    ring_kick(p);
    rd_assert_stuck(p, 0, 1000000);

    m.p = p = rd_migrate(p, tmpdir);
    rd_assert_stuck(p, 0, 1000000);
    g_assert_cmphex(vm_readl(&m, as, VA_DST + 4096), ==, 0xff010101);
    vm_rw(&m, as, VA_MEM, (uint64_t[]) { cpu_to_le64(3) }, 8, true);
    qtest_clock_step(p->v.qts, 200000);
    pg_finish(p);
    g_assert_cmphex(vm_readl(&m, as, VA_DST + 4096 + 124), ==, 0xff020202);
    g_assert_cmphex(vm_readl(&m, as, VA_DST + 124), ==, 0xff010101);
    g_assert_cmphex(vm_slot_dw(p, s, VDXG_SLOT_DST, VDXG_CTX_SLOT_DW_BOUND),
                    ==, 1);
    g_assert_cmphex(vm_slot_dw(p, s, VDXG_SLOT_DST, VDXG_CTX_SLOT_DW_PITCH),
                    ==, 4096);
    vm_stop(&m);
    g_rmdir(tmpdir);
}

void vdxg_test_add_vmode_tests(void)
{
    qtest_add_func("/vdxg/vmode/commands", test_vm_commands);
    qtest_add_func("/vdxg/vmode/scattered", test_vm_scattered);
    qtest_add_func("/vdxg/vmode/faults", test_vm_faults);
    qtest_add_func("/vdxg/vmode/state", test_vm_state);
    qtest_add_func("/vdxg/vmode/state-bad", test_vm_state_bad);
    qtest_add_func("/vdxg/vmode/state-cost", test_vm_state_cost);
    qtest_add_func("/vdxg/vmode/3d-state", test_vm_3d_state);
    qtest_add_func("/vdxg/vmode/sliced", test_vm_sliced);
    qtest_add_func("/vdxg/vmode/tlb-engines", test_vm_tlb_engines);
    qtest_add_func("/vdxg/vmode/migration", test_vm_migration);
}

/* The few library routines the frame program needs: memory, clock, text. */
#include "fp.h"

/* MVCL moves (and pads) in one interruptible instruction: far cheaper under
 * emulation than a byte loop. */
void *memcpy(void *dst, const void *src, size_t n)
{
    register uint32_t d __asm__("2") = (uint32_t)dst;
    register uint32_t dl __asm__("3") = n;
    register uint32_t s __asm__("4") = (uint32_t)src;
    register uint32_t sl __asm__("5") = n;
    __asm__ volatile("mvcl %0,%2" : "+d"(d), "+d"(dl), "+d"(s), "+d"(sl) : : "cc", "memory");
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    register uint32_t d __asm__("2") = (uint32_t)dst;
    register uint32_t dl __asm__("3") = n;
    register uint32_t s __asm__("4") = 0;
    register uint32_t sl __asm__("5") = ((uint32_t)(uint8_t)c) << 24;   /* pad byte, length 0 */
    __asm__ volatile("mvcl %0,%2" : "+d"(d), "+d"(dl), "+d"(s), "+d"(sl) : : "cc", "memory");
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    for (; n; n--, x++, y++)
        if (*x != *y)
            return *x < *y ? -1 : 1;
    return 0;
}

size_t fp_strlen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

uint64_t fp_tod(void)
{
    uint64_t t;
    __asm__ volatile("stck %0" : "=Q"(t) : : "cc");
    return t;
}

uint32_t fp_now_us(void)
{
    return (uint32_t)(fp_tod() >> 12);
}

static void set_clock_comparator(uint64_t v)
{
    __asm__ volatile("sckc %0" : : "Q"(v));
}

void fp_set_alarm_us(uint32_t us)
{
    uint32_t cr0;
    set_clock_comparator(fp_tod() + ((uint64_t)us << 12));
    __asm__ volatile("stctl 0,0,%0" : "=Q"(cr0));
    cr0 |= 0x00000800;                  /* clock-comparator subclass mask */
    __asm__ volatile("lctl 0,0,%0" : : "Q"(cr0));
}

void fp_clear_alarm(void)
{
    set_clock_comparator(~(uint64_t)0);
}

/* Unsigned 32-bit division by shift and subtract (no libgcc in a freestanding
 * 31-bit build). */
uint32_t fp_udiv(uint32_t n, uint32_t d, uint32_t *rem)
{
    uint32_t q = 0, r = 0;
    if (d == 0) {
        if (rem)
            *rem = 0;
        return 0;
    }
    for (int i = 31; i >= 0; i--) {
        r = (r << 1) | ((n >> i) & 1);
        if (r >= d) {
            r -= d;
            q |= 1u << i;
        }
    }
    if (rem)
        *rem = r;
    return q;
}

void fp_putc(struct fp_buf *b, char c)
{
    if (b->len < b->cap)
        b->p[b->len++] = c;
}

void fp_puts(struct fp_buf *b, const char *s)
{
    while (*s)
        fp_putc(b, *s++);
}

void fp_putu64(struct fp_buf *b, uint64_t v)
{
    static const uint64_t pow10[] = {
        10000000000000000000ull, 1000000000000000000ull, 100000000000000000ull,
        10000000000000000ull, 1000000000000000ull, 100000000000000ull, 10000000000000ull,
        1000000000000ull, 100000000000ull, 10000000000ull, 1000000000ull, 100000000ull,
        10000000ull, 1000000ull, 100000ull, 10000ull, 1000ull, 100ull, 10ull, 1ull,
    };
    int started = 0;
    for (size_t i = 0; i < sizeof pow10 / sizeof pow10[0]; i++) {
        char digit = '0';
        while (v >= pow10[i]) {
            v -= pow10[i];
            digit++;
        }
        if (digit != '0' || started || i == sizeof pow10 / sizeof pow10[0] - 1) {
            fp_putc(b, digit);
            started = 1;
        }
    }
}

void fp_puthex(struct fp_buf *b, uint32_t v, int digits)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = digits - 1; i >= 0; i--)
        fp_putc(b, hex[(v >> (4 * i)) & 0xF]);
}

void fp_putip(struct fp_buf *b, uint32_t ip)
{
    for (int i = 3; i >= 0; i--) {
        fp_putu64(b, (ip >> (8 * i)) & 0xFF);
        if (i)
            fp_putc(b, '.');
    }
}

void fp_putmac(struct fp_buf *b, const uint8_t *mac)
{
    for (int i = 0; i < 6; i++) {
        fp_puthex(b, mac[i], 2);
        if (i < 5)
            fp_putc(b, ':');
    }
}

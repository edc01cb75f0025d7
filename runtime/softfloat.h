/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IEEE-754 binary64 arithmetic on integers (the floating-point tapset):
 * a double is its bit pattern in a u64. Kernel code must not touch the
 * FPU, so every operation works on the sign, exponent and significand
 * with integer instructions, rounding to nearest even. NaN results follow
 * SystemTap 4.8's softfloat: the default NaN is 0x7ff8000000000000, an
 * operand NaN is returned (quieted when signalling), the first one first.
 */
#ifndef STP_SOFTFLOAT_H
#define STP_SOFTFLOAT_H

u64 stp_f64_add(u64 a, u64 b);
u64 stp_f64_sub(u64 a, u64 b);
u64 stp_f64_mul(u64 a, u64 b);
u64 stp_f64_div(u64 a, u64 b);
u64 stp_f64_rem(u64 a, u64 b);
u64 stp_f64_sqrt(u64 a);
bool stp_f64_eq(u64 a, u64 b);
bool stp_f64_lt(u64 a, u64 b);
bool stp_f64_le(u64 a, u64 b);
u64 stp_i64_to_f64(s64 v);
u64 stp_f32_to_f64(u32 a);
s64 stp_f64_to_i64(u64 a, int rounding_mode);
void stp_f64_to_str(char *out, size_t len, u64 a, int precision);
u64 stp_str_to_f64(const char *s);

#define STP_F64_DEFAULT_NAN 0x7ff8000000000000ULL

#endif

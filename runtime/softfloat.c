// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * IEEE-754 binary64 arithmetic with integer instructions only (see
 * softfloat.h). Internally a finite nonzero value is (sign, exp, sig)
 * meaning sig * 2^(exp - 1084): with sig's leading one at bit 62, exp + 1
 * is the biased exponent and bits 9..0 are the rounding bits, the lowest
 * of them sticky (any one bit shifted out ORs into it).
 */
#include <linux/ctype.h>
#include <linux/limits.h>

#define F64_SIGN(a) ((a) >> 63)
#define F64_EXP(a) ((int)(((a) >> 52) & 0x7ff))
#define F64_FRAC(a) ((a) & 0x000fffffffffffffULL)
#define F64_QUIET 0x0008000000000000ULL

static bool f64_is_nan(u64 a)
{
	return F64_EXP(a) == 0x7ff && F64_FRAC(a);
}

static bool f64_is_signalling(u64 a)
{
	return f64_is_nan(a) && !(a & F64_QUIET);
}

/* The NaN an operation with a NaN operand returns (4.8's rule). */
static u64 f64_nan_of(u64 a, u64 b)
{
	if (f64_is_signalling(a) || f64_is_signalling(b))
		return (f64_is_signalling(a) ? a : b) | F64_QUIET;
	return f64_is_nan(a) ? a : b;
}

static u64 f64_pack(u64 sign, u64 exp, u64 sig)
{
	return (sign << 63) + (exp << 52) + sig;	/* a carry bumps exp */
}

static u64 shift_right_jam(u64 v, int n)
{
	if (n <= 0)
		return v;
	if (n >= 64)
		return v != 0;
	return (v >> n) | ((v << (64 - n)) != 0);
}

/* Rounds sig * 2^(exp - 1084) to the nearest double, ties to even. */
static u64 f64_round_pack(u64 sign, int exp, u64 sig)
{
	unsigned int round_bits;

	if (!sig)
		return sign << 63;
	while (sig >> 63) {
		sig = shift_right_jam(sig, 1);
		exp++;
	}
	while (!(sig >> 62)) {
		sig <<= 1;
		exp--;
	}
	if (exp < 0) {		/* subnormal: the exponent of the smallest */
		sig = shift_right_jam(sig, -exp);
		exp = 0;
	} else if (exp > 0x7fd ||
		   (exp == 0x7fd && sig + 0x200 >= 0x8000000000000000ULL)) {
		return f64_pack(sign, 0x7ff, 0);
	}
	round_bits = sig & 0x3ff;
	sig = (sig + 0x200) >> 10;
	if (round_bits == 0x200)
		sig &= ~1ULL;
	if (!sig)
		exp = 0;
	/* a normal value's hidden bit adds one to exp */
	return f64_pack(sign, exp, sig);
}

/* A finite value's exponent and significand (value m * 2^(e - 1075)). */
static void f64_unpack(u64 a, int *e, u64 *m)
{
	*e = F64_EXP(a) ? F64_EXP(a) : 1;
	*m = F64_EXP(a) ? F64_FRAC(a) | (1ULL << 52) : F64_FRAC(a);
}

/* As f64_unpack, a nonzero subnormal's m shifted up to bit 52. */
static void f64_unpack_norm(u64 a, int *e, u64 *m)
{
	f64_unpack(a, e, m);
	while (!(*m >> 52)) {
		*m <<= 1;
		(*e)--;
	}
}

u64 stp_f64_add(u64 a, u64 b)
{
	u64 sa = F64_SIGN(a), sb = F64_SIGN(b), ma, mb, sig;
	int ea, eb;

	if (f64_is_nan(a) || f64_is_nan(b))
		return f64_nan_of(a, b);
	if (F64_EXP(a) == 0x7ff)
		return F64_EXP(b) == 0x7ff && sa != sb ? STP_F64_DEFAULT_NAN : a;
	if (F64_EXP(b) == 0x7ff)
		return b;
	if (!(a << 1) && !(b << 1))
		return (sa & sb) << 63;
	f64_unpack(a, &ea, &ma);
	f64_unpack(b, &eb, &mb);
	ma <<= 9;
	mb <<= 9;
	if (ea < eb || (ea == eb && ma < mb)) {	/* a the larger magnitude */
		u64 t = ma; int te = ea, ts = sa;

		ma = mb; ea = eb; sa = sb;
		mb = t; eb = te; sb = ts;
	}
	mb = shift_right_jam(mb, ea - eb);
	if (sa == sb)
		sig = ma + mb;
	else if (ma == mb)
		return 0;			/* x - x is +0 */
	else
		sig = ma - mb;
	/* m << 9 has its leading one at bit 61: value sig*2^(ea-1084) */
	return f64_round_pack(sa, ea, sig);
}

u64 stp_f64_sub(u64 a, u64 b)
{
	if (f64_is_nan(b))
		return f64_nan_of(a, b);
	return stp_f64_add(a, b ^ (1ULL << 63));
}

u64 stp_f64_mul(u64 a, u64 b)
{
	u64 sign = F64_SIGN(a) ^ F64_SIGN(b), ma, mb, sig;
	unsigned __int128 p;
	int ea, eb;

	if (f64_is_nan(a) || f64_is_nan(b))
		return f64_nan_of(a, b);
	if (F64_EXP(a) == 0x7ff || F64_EXP(b) == 0x7ff) {
		if (!(a << 1) || !(b << 1))
			return STP_F64_DEFAULT_NAN;	/* inf * 0 */
		return f64_pack(sign, 0x7ff, 0);
	}
	if (!(a << 1) || !(b << 1))
		return sign << 63;
	f64_unpack_norm(a, &ea, &ma);
	f64_unpack_norm(b, &eb, &mb);
	p = (unsigned __int128)ma * mb;		/* 105 or 106 bits */
	sig = (u64)(p >> 42) | ((p & ((1ULL << 42) - 1)) != 0);
	return f64_round_pack(sign, ea + eb - 1024, sig);
}

u64 stp_f64_div(u64 a, u64 b)
{
	u64 sign = F64_SIGN(a) ^ F64_SIGN(b), ma, mb, q = 0;
	int ea, eb, i;

	if (f64_is_nan(a) || f64_is_nan(b))
		return f64_nan_of(a, b);
	if (F64_EXP(a) == 0x7ff)
		return F64_EXP(b) == 0x7ff ? STP_F64_DEFAULT_NAN :
		       f64_pack(sign, 0x7ff, 0);
	if (F64_EXP(b) == 0x7ff)
		return sign << 63;
	if (!(b << 1))
		return !(a << 1) ? STP_F64_DEFAULT_NAN : f64_pack(sign, 0x7ff, 0);
	if (!(a << 1))
		return sign << 63;
	f64_unpack_norm(a, &ea, &ma);
	f64_unpack_norm(b, &eb, &mb);
	/* q = floor(ma * 2^62 / mb), one bit a step: no 128-bit divide */
	for (i = 0; i < 63; i++) {
		q <<= 1;
		if (ma >= mb) {
			ma -= mb;
			q |= 1;
		}
		ma <<= 1;
	}
	return f64_round_pack(sign, ea - eb + 1022, q | (ma != 0));
}

u64 stp_f64_rem(u64 a, u64 b)
{
	u64 sign = F64_SIGN(a), ma, mb, r;
	int ea, eb, odd = 0;

	if (f64_is_nan(a) || f64_is_nan(b))
		return f64_nan_of(a, b);
	if (F64_EXP(a) == 0x7ff || !(b << 1))
		return STP_F64_DEFAULT_NAN;
	if (F64_EXP(b) == 0x7ff || !(a << 1))
		return a;
	f64_unpack_norm(a, &ea, &ma);
	f64_unpack_norm(b, &eb, &mb);
	if (ea < eb - 1)
		return a;			/* |a| < |b| / 2 */
	if (ea == eb - 1) {			/* |b| / 2 <= |a| < 2 |b| */
		if (ma <= mb)
			return a;		/* a tie keeps quotient 0 */
		/* |a| - |b| in units of 2^(ea - 1075), the sign flipped */
		return f64_round_pack(sign ^ 1, ea + 9, 2 * mb - ma);
	}
	/* the remainder of ma * 2^(ea - eb) by mb, the quotient's low bit */
	r = ma;
	for (;;) {
		odd = r >= mb;
		if (odd)
			r -= mb;
		if (ea == eb)
			break;
		r <<= 1;
		ea--;
	}
	if (2 * r > mb || (2 * r == mb && odd))
		return f64_round_pack(sign ^ 1, eb + 9, mb - r);
	return f64_round_pack(sign, eb + 9, r);
}

u64 stp_f64_sqrt(u64 a)
{
	unsigned __int128 rem, res = 0, bit = (unsigned __int128)1 << 126;
	u64 m;
	int e;

	if (f64_is_nan(a))
		return f64_nan_of(a, 0);
	if (!(a << 1))
		return a;			/* +-0 */
	if (F64_SIGN(a))
		return STP_F64_DEFAULT_NAN;
	if (F64_EXP(a) == 0x7ff)
		return a;
	f64_unpack_norm(a, &e, &m);
	if ((e - 1075) & 1) {			/* an even power of two */
		m <<= 1;
		e--;
	}
	rem = (unsigned __int128)m << 70;	/* in [2^122, 2^124) */
	while (bit) {
		if (rem >= res + bit) {
			rem -= res + bit;
			res = (res >> 1) + bit;
		} else {
			res >>= 1;
		}
		bit >>= 2;
	}
	/* res = floor(sqrt(m * 2^70)), value res * 2^((e - 1145) / 2) */
	return f64_round_pack(0, (e - 1145) / 2 + 1084,
			      (u64)res | (rem != 0));
}

bool stp_f64_eq(u64 a, u64 b)
{
	if (f64_is_nan(a) || f64_is_nan(b))
		return false;
	return a == b || !((a | b) << 1);
}

bool stp_f64_lt(u64 a, u64 b)
{
	bool sa = F64_SIGN(a);

	if (f64_is_nan(a) || f64_is_nan(b))
		return false;
	if (sa != F64_SIGN(b))
		return sa && ((a | b) << 1);
	return a != b && (sa ^ (a < b));
}

bool stp_f64_le(u64 a, u64 b)
{
	bool sa = F64_SIGN(a);

	if (f64_is_nan(a) || f64_is_nan(b))
		return false;
	if (sa != F64_SIGN(b))
		return sa || !((a | b) << 1);
	return a == b || (sa ^ (a < b));
}

u64 stp_i64_to_f64(s64 v)
{
	u64 mag = v < 0 ? -(u64)v : (u64)v;

	return f64_round_pack(v < 0, 1084, mag);
}

u64 stp_f32_to_f64(u32 a)
{
	u64 sign = a >> 31, frac = a & 0x7fffff;
	int exp = (a >> 23) & 0xff;

	if (exp == 0xff)
		return frac ? (sign << 63) | 0x7ff8000000000000ULL | frac << 29
			    : f64_pack(sign, 0x7ff, 0);
	if (!exp)	/* zero or subnormal: frac * 2^-149, exact */
		return f64_round_pack(sign, 1084 - 149, frac);
	return f64_pack(sign, exp + 0x380, frac << 29);
}

/*
 * To an integer with SoftFloat's rounding modes: 0 nearest even, 1
 * toward zero, 2 down, 3 up, 4 nearest away from zero (others toward
 * zero). A NaN gives 0, too large a value INT64_MAX or INT64_MIN.
 */
s64 stp_f64_to_i64(u64 a, int mode)
{
	u64 sign = F64_SIGN(a), m, i, rest = 0, half = 0;
	int e, shift;
	bool up = false;

	if (f64_is_nan(a))
		return 0;
	f64_unpack(a, &e, &m);
	shift = 0x433 - F64_EXP(a);
	if (shift < -11)
		goto invalid;
	if (shift <= 0) {
		i = m << -shift;
	} else if (shift >= 64) {
		i = 0;
		rest = m;		/* below one half: only nonzero matters */
	} else {
		i = m >> shift;
		rest = m & ((1ULL << shift) - 1);
		half = 1ULL << (shift - 1);
	}
	if (rest) {
		if (mode == 0 || mode == 4)
			up = half && rest >= half;
		else if (mode == 2)
			up = sign;
		else if (mode == 3)
			up = !sign;
	}
	if (up) {
		i++;
		if (!i)
			goto invalid;
		if (mode == 0 && rest == half)
			i &= ~1ULL;
	}
	if (i && ((s64)(sign ? -i : i) < 0) != sign)
		goto invalid;
	return (s64)(sign ? -i : i);
invalid:
	return sign ? S64_MIN : S64_MAX;
}

/* Appends v in decimal to out, as much as fits; false when full. */
static bool stp_fp_put_u64(char *out, size_t len, size_t *pos, u64 v)
{
	char buf[24];
	int n = sizeof(buf);

	do {
		buf[--n] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n < (int)sizeof(buf) && *pos + 1 < len)
		out[(*pos)++] = buf[n++];
	out[*pos] = '\0';
	return n == (int)sizeof(buf) && *pos + 1 < len;
}

/*
 * SystemTap 4.8's fp_to_string(): the integer part, a point, precision
 * digits (at least one), the last one rounded up by the next digit alone
 * (no carry: 9 becomes "10"). Exact only for 1 <= |a| < 2^53 and
 * fractions down to 2^-11: 4.8 computes in 64 bits with shift counts
 * taken modulo 64 (what x86 does), and so do we, to print the same.
 */
void stp_f64_to_str(char *out, size_t len, u64 a, int precision)
{
	u32 exp = F64_EXP(a);
	u64 sig = F64_FRAC(a), frac, base, last, next = 0;
	unsigned int shift;
	size_t pos = 0;
	int i = 0;

	if (!len)
		return;
	if (exp)
		sig |= 1ULL << 52;
	exp -= 1023;
	shift = (52 - exp) & 63;
	out[0] = '\0';
	if (F64_SIGN(a) && len > 1) {
		out[pos++] = '-';
		out[pos] = '\0';
	}
	stp_fp_put_u64(out, len, &pos, sig >> shift);
	if (pos + 1 < len) {
		out[pos++] = '.';
		out[pos] = '\0';
	}
	base = 1ULL << shift;
	frac = sig & (base - 1);
	while (i++ < precision - 1) {
		frac *= 10;
		if (!stp_fp_put_u64(out, len, &pos, frac / base))
			return;		/* full: a huge precision ends here */
		frac %= base;
	}
	frac *= 10;
	last = frac / base;
	frac %= base;
	if (frac) {
		frac *= 10;
		next = frac / base;
	}
	if (next >= 5)
		last++;
	stp_fp_put_u64(out, len, &pos, last);
}

/*
 * SystemTap 4.8's string_to_fp(): [+-]digits[.digits][(e|E)[+-]digits],
 * computed with the operations above in its order (so rounded as it
 * does); anything else is the default NaN.
 */
u64 stp_str_to_f64(const char *s)
{
	u64 ten = stp_i64_to_f64(10), one = stp_i64_to_f64(1);
	u64 value = 0, power = one, power2 = 0;
	u64 sign = stp_i64_to_f64(*s == '-' ? -1 : 1);
	bool neg_exp;

	if (*s == '-' || *s == '+')
		s++;
	for (; isdigit(*s); s++)
		value = stp_f64_add(stp_f64_mul(value, ten),
				    stp_i64_to_f64(*s - '0'));
	if (*s == '.')
		s++;
	for (; isdigit(*s); s++) {
		value = stp_f64_add(stp_f64_mul(value, ten),
				    stp_i64_to_f64(*s - '0'));
		power = stp_f64_mul(power, ten);
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		neg_exp = *s == '-';
		if (*s == '-' || *s == '+')
			s++;
		for (; isdigit(*s); s++)
			power2 = stp_f64_add(stp_f64_mul(power2, ten),
					     stp_i64_to_f64(*s - '0'));
		/* once power is 0 or infinite it stays so: stop (4.8 loops
		 * on, forever when power2 is past 2^53) */
		while (!stp_f64_eq(power2, 0) && (power << 1) &&
		       F64_EXP(power) != 0x7ff) {
			power = neg_exp ? stp_f64_mul(power, ten)
					: stp_f64_div(power, ten);
			power2 = stp_f64_sub(power2, one);
		}
	}
	if (*s)
		return STP_F64_DEFAULT_NAN;
	return stp_f64_mul(sign, stp_f64_div(value, power));
}

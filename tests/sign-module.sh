# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by run-tests.sh: stap --sign-module (module/sign.c), on the host (a
# build, no guest; e2e/sig_enforce_* load the modules in a guest booted with
# module.sig_enforce=1). Each check runs on every kernel with headers, in a
# cache and key folder of its own:
#
#   sign/keydir-TAG     the key pair is made in KEYDIR (0700), the private
#                       key 0600, the certificate DER
#   sign/modinfo-TAG    modinfo shows the signature: signer, sig_key (the
#                       certificate's serial), sig_hashalgo (the kernel's)
#   sign/verify-TAG     the appended PKCS#7 signature verifies against the
#                       certificate over the module's unsigned bytes
#                       (openssl cms -verify), and not once a byte changed
#   sign/cache-TAG      signed and unsigned builds of one script are two
#                       cache entries; the signed one is reused, still signed
#   sign/default-TAG    without =KEYDIR the key is made under the cache

# sign_split KO SIG UNSIGNED: the PKCS#7 signature and the bytes it covers.
# The module ends with struct module_signature (12 bytes: algo, hash,
# id_type, signer_len, key_id_len, 3 pad, big-endian sig_len) and the magic.
sign_split() {
	python3 - "$@" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
magic = b"~Module signature appended~\n"
if not data.endswith(magic):
    sys.exit("no appended signature")
info = data[-len(magic) - 12:-len(magic)]
id_type = info[2]
sig_len = struct.unpack(">I", info[8:12])[0]
if id_type != 2:    # PKEY_ID_PKCS7
    sys.exit("signature id_type %d, not PKCS#7" % id_type)
end = len(data) - len(magic) - 12
open(sys.argv[2], "wb").write(data[end - sig_len:end])
open(sys.argv[3], "wb").write(data[:end - sig_len])
EOF
}

sign_verify() { # sig content cert.pem
	openssl cms -verify -binary -inform DER -in "$1" -content "$2" \
		-certfile "$3" -nointern -CAfile "$3" -purpose any \
		-out /dev/null 2>&1
}

sign_tests() { # release tag
	local release=$1 tag=$2 d=$work/sign-$2 ko ko2 plain mode info serial algo
	local script='probe begin { println("signed") exit() }'
	rm -rf "$d"
	mkdir -p "$d"
	if ! ko=$(cd "$d" && STAP_CACHE=$d/cache "$STAP" -r "$release" -p4 \
		--sign-module="$d/keys" -e "$script" 2>"$d/err"); then
		fail "sign/keydir-$tag" "stap -p4 --sign-module failed: $(head -c 600 "$d/err")"
		return
	fi
	mode=$(stat -c %a "$d/keys")/$(stat -c %a "$d/keys/signing_key.pem")
	if [ "$mode" != 700/600 ]; then
		fail "sign/keydir-$tag" "modes $mode, want 700/600"
	elif ! openssl x509 -inform DER -in "$d/keys/signing_key.x509" \
		-out "$d/cert.pem" 2>"$d/err"; then
		fail "sign/keydir-$tag" "the certificate is not DER: $(cat "$d/err")"
	else
		pass "sign/keydir-$tag"
	fi

	info=$(modinfo "$ko" 2>&1)
	serial=$(openssl x509 -in "$d/cert.pem" -noout -serial | sed 's/^serial=//')
	algo=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' \
		"/lib/modules/$release/build/.config" 2>/dev/null)
	if ! grep -qx 'signer: *stap module signing key' <<<"$info"; then
		fail "sign/modinfo-$tag" "no signer: $info"
	elif [ "$(sed -n 's/^sig_key: *//p' <<<"$info" | tr -d :)" != "$serial" ]; then
		fail "sign/modinfo-$tag" "sig_key is not the certificate's serial $serial: $info"
	elif ! grep -qx "sig_hashalgo: *${algo:-sha256}" <<<"$info"; then
		fail "sign/modinfo-$tag" "sig_hashalgo not ${algo:-sha256}: $info"
	else
		pass "sign/modinfo-$tag (signer, sig_key $serial, ${algo:-sha256})"
	fi

	if ! out=$(sign_split "$ko" "$d/sig.p7" "$d/body.ko" 2>&1); then
		fail "sign/verify-$tag" "$out"
	elif ! out=$(sign_verify "$d/sig.p7" "$d/body.ko" "$d/cert.pem"); then
		fail "sign/verify-$tag" "openssl cms -verify: $out"
	else
		# flip the bits of one byte (writing a fixed byte changes
		# nothing where the module has that byte already)
		byte=$(od -An -tu1 -j4096 -N1 "$d/body.ko" | tr -d ' ')
		printf "\\$(printf '%03o' $((byte ^ 255)))" |
			dd of="$d/body.ko" bs=1 seek=4096 conv=notrunc 2>/dev/null
		if sign_verify "$d/sig.p7" "$d/body.ko" "$d/cert.pem" >/dev/null; then
			fail "sign/verify-$tag" "a changed module still verifies"
		else
			pass "sign/verify-$tag"
		fi
	fi

	plain=$(cd "$d" && STAP_CACHE=$d/cache "$STAP" -r "$release" -p4 \
		-e "$script" 2>"$d/err")
	ko2=$(cd "$d" && STAP_CACHE=$d/cache "$STAP" -r "$release" -p4 -v \
		--sign-module="$d/keys" -e "$script" 2>"$d/err2")
	if [ -z "$plain" ] || [ "$plain" = "$ko" ]; then
		fail "sign/cache-$tag" "unsigned build: '$plain' (signed: $ko)"
	elif tail -c 28 "$plain" | grep -q 'Module signature appended'; then
		fail "sign/cache-$tag" "the unsigned build is signed"
	elif [ "$ko2" != "$ko" ] || ! grep -q 'using cached' "$d/err2"; then
		fail "sign/cache-$tag" "the signed module was not reused: $ko2"
	elif ! tail -c 28 "$ko2" | grep -q 'Module signature appended'; then
		fail "sign/cache-$tag" "the cached signed module lost its signature"
	else
		pass "sign/cache-$tag"
	fi

	if ! (cd "$d" && STAP_CACHE=$d/cache2 "$STAP" -r "$release" -p4 \
		--sign-module -e "$script" >/dev/null 2>"$d/err"); then
		fail "sign/default-$tag" "$(head -c 600 "$d/err")"
	elif [ ! -s "$d/cache2/signing-key/signing_key.x509" ]; then
		fail "sign/default-$tag" "no key in \$STAP_CACHE/signing-key"
	else
		pass "sign/default-$tag"
	fi
	rm -rf "$d"
}

if wanted_group sign/; then
	if ! command -v openssl >/dev/null || ! command -v modinfo >/dev/null; then
		skip "sign/" "needs openssl and modinfo (kmod)"
	else
		for release in $releases; do
			sign_tests "$release" "$(echo "$release" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')"
		done
	fi
fi

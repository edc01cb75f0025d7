# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by run-tests.sh: the module cache as a trust boundary (issue 15).
# What the cache holds is compiled into or loaded as kernel code, so:
#
#   trust/cache-home          HOME unset: the passwd entry's home, not /tmp
#   trust/cache-writable      a cache directory group or others may write:
#                             refused, with the directory and why
#   trust/cache-not-owned     a cache directory of another user: refused
#   trust/cache-sealed        -p4 twice: the second is the cached module,
#                             which has its seal (MODULE.ko.sum)
#   trust/cache-tampered      a module changed in the cache: refused aloud,
#                             built again, sealed again
#   trust/cache-symlink       a symbolic link planted as the cached module:
#                             refused, replaced (not followed: its target
#                             is unchanged)
#   trust/cache-p5-tampered   a tampered cached module is not what pass 5
#                             loads (the guest runs the rebuilt one)
#   trust/cache-commands-tampered  kbuild's captured commands (run by the
#                             shell in pass 4) changed in the cache:
#                             refused aloud, nothing of the change run,
#                             captured again
#   trust/cache-link-other-user  STAP_CACHE through a symbolic link that a
#                             second user (made here, removed after) owns
#                             in a sticky directory, pointing at root's own
#                             cache: refused before pass 1, so re-pointing
#                             it later (during pass 2) cannot matter
#   trust/cache-dir-other-user  XDG_CACHE_HOME in that user's directory (as
#                             with sudo -E): refused
#   trust/cache-link-root     a link of root's: followed, and the caches are
#                             used by the path walked, not through the link
#   trust/define-shell        -D 'X=$(shell id > FILE)' at -p4: refused with
#                             SystemTap 4.8's message, nothing run (the
#                             value would reach the Kbuild file)
#   trust/name-injection-p3   a script (and an -I tapset) whose path holds
#                             "*/", newlines and #define lines: the -p3 C
#                             quotes the path (no line of it starts C)
#   trust/name-injection-run  that script in the guest prints what it says
#                             (the #define it names would change it)
#
# The builds use a private cache in $work (one runtime object build).

trust_p4() { # stderr-file stap-args...: the module's path on stdout
	local err=$1
	shift
	STAP_CACHE=$work/trust-cache "$STAP" -p4 "$@" 2>"$err"
}

trust_script='probe begin { println("trusted"); exit() }'

# name dir want: pass 2 with the cache in dir is refused with exactly want
cache_refused() {
	local out rc
	out=$(STAP_CACHE=$2 "$STAP" -p2 -e 'probe begin {}' 2>&1 >/dev/null)
	rc=$?
	if [ $rc = 1 ] && [ "$out" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "rc $rc, stderr: $out"
	fi
}

# A path that would close the C comment it is quoted in and define
# memcpy, which the generated print code calls: "safe" would print "pwnd".
trust_hostile_dir=$work/$'t*/\n#undef memcpy\n#define memcpy(d, s, n) __builtin_memcpy(d, "pwnd", n)\n'
trust_hostile_script() {
	mkdir -p "$trust_hostile_dir/*t" &&
	printf '%s\n' 'function hostile_word() { return "safe" }' \
		>"$trust_hostile_dir/*t/*.stp" &&
	printf '%s\n' 'probe begin { println("safe"); if (hostile_word() != "safe") println("bad"); exit() }' \
		>"$trust_hostile_dir/*.stp"
}

if wanted_group trust/; then
	name=trust/name-injection-p3
	if wanted $name; then
		trust_hostile_script
		"$STAP" -p3 -I "$trust_hostile_dir/*t" "$trust_hostile_dir/*.stp" \
			>"$work/trust-hostile.c" 2>"$work/trust.err"
		rc=$?
		if [ $rc != 0 ]; then
			fail $name "rc $rc: $(head -c 600 "$work/trust.err")"
		elif grep -n '^#undef memcpy\|^#define memcpy\|"pwnd"' "$work/trust-hostile.c" >"$work/trust.grep"; then
			fail $name "the path reached the C raw: $(head -5 "$work/trust.grep")"
		elif ! grep -qF '/* probe at "'"$work"'/t\052/\n#undef memcpy\n' "$work/trust-hostile.c" ||
		     ! grep -qF '/* function hostile_word at "'"$work"'/t\052/' "$work/trust-hostile.c"; then
			fail $name "no quoted path in the probe's and the function's comments: $(grep -a -m3 'probe at\|function hostile_word at' "$work/trust-hostile.c")"
		else
			pass $name
		fi
	fi

	name=trust/name-injection-run
	if wanted $name; then
		if [ $use_vm = 0 ]; then
			skip $name "--no-vm"
		else
			trust_hostile_script
			out=$(STAP_CACHE=$work/trust-cache timeout 300 "$STAP" \
				-I "$trust_hostile_dir/*t" "$trust_hostile_dir/*.stp" \
				2>"$work/trust.err")
			rc=$?
			if [ $rc = 0 ] && [ "$out" = safe ]; then
				pass $name
			else
				fail $name "rc $rc, stdout '$out', stderr: $(head -c 600 "$work/trust.err")"
			fi
		fi
	fi

	name=trust/define-shell
	if wanted $name; then
		out=$(STAP_CACHE=$work/trust-cache "$STAP" -p4 \
			-D "X=\$(shell id > $work/pwned)" -e 'probe begin { exit() }' 2>&1)
		rc=$?
		want="ERROR: Safety pattern mismatch for -D parameter ('X=\$(shell id > $work/pwned)' vs. '^[a-z_][a-z_0-9]*(=-?[a-z_0-9]+)?\$') rc=1"
		if [ $rc = 1 ] && [ "$out" = "$want" ] && [ ! -e "$work/pwned" ]; then
			pass $name
		else
			fail $name "rc $rc, stderr: $out"
		fi
	fi

	# two users: root (the suite) and one made here
	if wanted trust/cache-link-other-user || wanted trust/cache-dir-other-user ||
	   wanted trust/cache-link-root; then
		trust_user=stapt$$
		two=$work/two
		if [ "$(id -u)" != 0 ] || ! command -v useradd >/dev/null ||
		   ! command -v runuser >/dev/null; then
			trust_user=
		elif ! useradd --system --no-create-home --shell /bin/sh \
			"$trust_user" 2>"$work/trust.err"; then
			fail trust/cache-useradd "$(cat "$work/trust.err")"
			trust_user=
		else
			uid=$(id -u "$trust_user")
			chmod 0711 "$work"
			mkdir -p "$two/root-cache" "$two/sticky" "$two/home"
			chmod 0755 "$two"
			chmod 0700 "$two/root-cache"
			chmod 1777 "$two/sticky"
			chown "$trust_user" "$two/home"
			# the user's own doing: a link to root's cache
			runuser -u "$trust_user" -- ln -s "$two/root-cache" "$two/sticky/cache"
			ln -s "$two/root-cache" "$two/sticky/root-link"
		fi
		for name in trust/cache-link-other-user trust/cache-dir-other-user \
			    trust/cache-link-root; do
			wanted $name || continue
			if [ -z "$trust_user" ]; then
				skip $name "needs root, useradd and runuser"
				continue
			fi
			case $name in
			*link-other-user)
				cache_refused $name "$two/sticky/cache" \
					"stap: error: cache directory $two/sticky/cache: its path goes through $two/sticky/cache, a symbolic link of uid $uid (not of uid 0): its owner could point it elsewhere (STAP_CACHE chooses another)"
				[ "$(stat -c %U "$two/sticky/cache")" = "$trust_user" ] ||
					fail $name-owner "the link is not the user's"
				;;
			*dir-other-user)
				out=$(env -u STAP_CACHE XDG_CACHE_HOME="$two/home/.cache" \
					"$STAP" -p2 -e 'probe begin {}' 2>&1 >/dev/null)
				rc=$?
				want="stap: error: cache directory $two/home/.cache/stap: its parent $two/home belongs to uid $uid, not to uid 0: its owner could replace what it holds (STAP_CACHE chooses another)"
				if [ $rc = 1 ] && [ "$out" = "$want" ] &&
				   [ ! -e "$two/home/.cache" ]; then
					pass $name
				else
					fail $name "rc $rc, stderr: $out"
				fi
				;;
			*link-root)
				out=$(STAP_CACHE=$two/sticky/root-link "$STAP" -vv -p1 \
					-e 'probe begin {}' 2>&1 >/dev/null | head -1)
				if [ "$out" = "stap: caches in $two/root-cache" ]; then
					pass $name
				else
					fail $name "want 'stap: caches in $two/root-cache', got '$out'"
				fi
				;;
			esac
		done
		if [ -n "$trust_user" ]; then
			userdel "$trust_user" 2>/dev/null ||
				fail trust/cache-userdel "userdel $trust_user failed"
			rm -rf "$two"
			chmod 0700 "$work"
		fi
	fi

	name=trust/cache-home
	if wanted $name; then
		home=$(getent passwd "$(id -u)" | cut -d: -f6)
		out=$(env -u HOME -u XDG_CACHE_HOME -u STAP_CACHE "$STAP" -vv \
			-p1 -e 'probe begin {}' 2>&1 >/dev/null | head -1)
		if [ -z "$home" ]; then
			skip $name "no passwd entry for uid $(id -u)"
		elif [ "$out" = "stap: caches in $home/.cache/stap" ]; then
			pass $name
		else
			fail $name "want 'stap: caches in $home/.cache/stap', got '$out'"
		fi
	fi

	name=trust/cache-writable
	if wanted $name; then
		d=$work/trust-open
		mkdir -p "$d" && chmod 0775 "$d"
		cache_refused $name "$d" "stap: error: cache directory $d: it is writable by group (mode 0775): they could replace what it holds (STAP_CACHE chooses another)"
	fi

	name=trust/cache-not-owned
	if wanted $name; then
		d=$work/trust-other
		mkdir -p "$d"
		if [ "$(id -u)" != 0 ] || ! chown 65534 "$d" 2>/dev/null; then
			skip $name "needs root to give a directory away"
		else
			cache_refused $name "$d" "stap: error: cache directory $d: it belongs to uid 65534, not to uid 0: its owner could replace what it holds (STAP_CACHE chooses another)"
		fi
	fi

	# the sealed-cache tests share one build
	ko=
	if wanted trust/cache-sealed || wanted trust/cache-tampered ||
	   wanted trust/cache-symlink || wanted trust/cache-p5; then
		ko=$(trust_p4 "$work/trust.err" -e "$trust_script")
		if [ $? != 0 ] || [ ! -f "$ko" ]; then
			fail trust/cache-build "$(head -c 600 "$work/trust.err")"
			ko=
		fi
	fi

	name=trust/cache-sealed
	if wanted $name && [ -n "$ko" ]; then
		ko2=$(trust_p4 "$work/trust.err" -v -e "$trust_script")
		if [ "$ko2" = "$ko" ] && [ -f "$ko.sum" ] &&
		   grep -q "^Pass 4: using cached $ko\$" "$work/trust.err"; then
			pass $name
		else
			fail $name "path '$ko2' (first '$ko'), stderr: $(head -c 600 "$work/trust.err")"
		fi
	fi

	name=trust/cache-commands-tampered
	if wanted $name && [ -n "$ko" ]; then
		cmds=$(ls "$work"/trust-cache/*/kbuild-*.cmds 2>/dev/null | head -1)
		if [ -z "$cmds" ]; then
			fail $name "no kbuild-*.cmds in the cache"
		else
			sed -i "s|^src |src touch $work/trust-ran; |" "$cmds"
			ko2=$(trust_p4 "$work/trust.err" -e 'probe begin { println("other"); exit() }')
			want="stap: warning: the cached kbuild commands $cmds is refused: it does not match its seal $cmds.sum (size and hash); making it again"
			got=$(cat "$work/trust.err")
			if [ -n "$ko2" ] && [ "$got" = "$want" ] &&
			   [ ! -e "$work/trust-ran" ] && ! grep -q trust-ran "$cmds"; then
				pass $name
			else
				fail $name "stderr: $got; ran: $(ls "$work/trust-ran" 2>&1)"
			fi
		fi
	fi

	name=trust/cache-tampered
	if wanted $name && [ -n "$ko" ]; then
		printf 'X' >>"$ko"
		ko2=$(trust_p4 "$work/trust.err" -e "$trust_script")
		want="stap: warning: the cached module $ko is refused: it does not match its seal $ko.sum (size and hash); making it again"
		got=$(cat "$work/trust.err")
		ko3=$(trust_p4 "$work/trust.err3" -e "$trust_script")
		if [ "$ko2" = "$ko" ] && [ "$got" = "$want" ] &&
		   [ "$ko3" = "$ko" ] && [ ! -s "$work/trust.err3" ]; then
			pass $name
		else
			fail $name "stderr: $got / then: $(head -c 300 "$work/trust.err3")"
		fi
	fi

	name=trust/cache-symlink
	if wanted $name && [ -n "$ko" ]; then
		echo precious >"$work/trust-victim"
		rm -f "$ko"
		ln -s "$work/trust-victim" "$ko"
		ko2=$(trust_p4 "$work/trust.err" -e "$trust_script")
		want="stap: warning: the cached module $ko is refused: it is a symbolic link; making it again"
		got=$(cat "$work/trust.err")
		if [ "$ko2" = "$ko" ] && [ "$got" = "$want" ] && [ ! -L "$ko" ] &&
		   [ "$(cat "$work/trust-victim")" = precious ]; then
			pass $name
		else
			fail $name "stderr: $got; victim: $(head -c 100 "$work/trust-victim")"
		fi
	fi

	name=trust/cache-p5-tampered
	if wanted $name && [ -n "$ko" ]; then
		if [ $use_vm = 0 ]; then
			skip $name "--no-vm"
		else
			# the cached module, replaced by another script's
			other=$(trust_p4 "$work/trust.err" -e 'probe begin { println("swapped"); exit() }')
			cp "$other" "$ko"
			out=$(STAP_CACHE=$work/trust-cache timeout 300 "$STAP" --runtime=kernel \
				-e "$trust_script" 2>"$work/trust.err")
			rc=$?
			want="stap: warning: the cached module $ko is refused: it does not match its seal $ko.sum (size and hash); making it again"
			if [ $rc = 0 ] && [ "$out" = trusted ] &&
			   [ "$(head -1 "$work/trust.err")" = "$want" ]; then
				pass $name
			else
				fail $name "rc $rc, stdout '$out', stderr: $(head -c 600 "$work/trust.err")"
			fi
		fi
	fi
fi

#!/bin/sh
# arch.sh — the one rule of the architecture (docs/design.md): runtime/ names no
# operator, instruction, scalar fn or memory declared in specs/ or any target
# directory.  Names come from the generated tables; runtime sources are read
# with comments stripped, so identifiers and string literals both count.
set -u
BUILD=${BUILD:-build}
names=$(cat "$BUILD"/gen/*/ops.def "$BUILD"/gen/*/insts.def "$BUILD"/gen/*/fns.def 2>/dev/null |
	sed -n 's/^\(OP\|INST\|FN\)(\([A-Za-z_0-9]*\),.*/\2/p'
	grep -ho '^ *memory  *[A-Za-z_][A-Za-z_0-9]*' targets/*/*.ax tests/targets/*/*.ax | awk '{print $2}')
names=$(printf '%s\n' $names | sort -u)
if [ -z "$names" ]; then
	echo "arch: no generated tables under $BUILD/gen: run make first" >&2
	exit 2
fi
pattern=$(printf '%s\n' $names | paste -sd'|' -)
hits=0
RUNTIME_DIR=${RUNTIME_DIR:-runtime}
for f in $(find "$RUNTIME_DIR" -name '*.[ch]' | sort); do
	# a name counts as an identifier or a word of a string; a piece of a
	# hyphenated or dotted word (--max-variants, out.dot) does not
	out=$(gcc -fpreprocessed -dD -E -P "$f" 2>/dev/null | grep -nP "(?<![-\\w.])($pattern)(?![-\\w.])")
	if [ -n "$out" ]; then
		echo "arch: $f names a spec'd operator, instruction, fn or memory:"
		printf '%s\n' "$out" | sed 's/^/    /'
		hits=$((hits + 1))
	fi
done
n=$(printf '%s\n' $names | wc -l)
if [ "$hits" -gt 0 ]; then
	echo "arch: FAIL ($hits files; $n names checked)"
	exit 1
fi
echo "arch: ok ($n names checked against $RUNTIME_DIR/)"

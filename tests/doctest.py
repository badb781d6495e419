#!/usr/bin/python3
"""doctest.py - every command and code sample of README.md and docs/*.md runs as shown.

usage: doctest.py BUILD [FILE.md ...]    the files given, or README.md and docs/*.md
       doctest.py --self-test BUILD      the fixtures of tests/doctest/ pass or fail as they say

The conventions are written at the top of docs/testing.md. In short: a ```sh block holds
commands (`$ ` lines, run by sh from the repository root, with `axonc` and `axgen` the
binaries of BUILD) and their output (the lines up to the next `$ `, matched against stdout
then stderr, `...` standing for any text in a line or, alone on a line, for any lines); a
command must exit 0 unless its line ends with `# exit: N`. A ```python block is a program:
every function with an annotated tensor parameter must pass `axonc graph`, and with
`<!-- doctest: dims M=4,K=8 -->` above the block also `axonc run` at those sizes. An ```ax
block is a spec file: `axgen --check` must accept it. Any other block, and any block that is
too long or changes the system, carries `<!-- doctest: skip REASON -->` on the line above it.
Relative links must name files that exist, and README.md has at most 250 lines.

Debian's /usr/bin/python3, standard library only. Exit 0 when everything ran as shown,
1 otherwise (each failure named by file:line), 2 on a usage error.
"""
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README_MAX_LINES = 250
TIMEOUT_S = 300

FENCE = re.compile(r'^(```+|~~~+)\s*([A-Za-z0-9_+-]*)\s*$')
MARKER = re.compile(r'^\s*<!--\s*doctest:\s*(\w+)\s*(.*?)\s*-->\s*$')
EXIT = re.compile(r'#\s*exit:\s*(\d+)\s*$')
LINK = re.compile(r'\]\(([^)\s]+)\)')


class Doc:
    def __init__(self, build):
        self.build = os.path.abspath(build)
        self.tmp = tempfile.mkdtemp(prefix='axon-doctest-')
        bindir = os.path.join(self.tmp, 'bin')
        os.mkdir(bindir)
        for tool in ('axonc', 'axgen'):
            os.symlink(os.path.join(self.build, tool), os.path.join(bindir, tool))
        self.env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get('PATH', ''))
        self.failures = 0
        self.counts = {'sh': 0, 'python': 0, 'ax': 0, 'skipped': 0, 'commands': 0}

    def fail(self, where, msg, detail=''):
        self.failures += 1
        print('%s: %s' % (where, msg))
        if detail:
            for line in detail.rstrip('\n').split('\n')[:30]:
                print('    ' + line)

    def run(self, argv_or_cmd, shell=False):
        try:
            p = subprocess.run(argv_or_cmd if not shell else ['sh', '-c', argv_or_cmd], cwd=ROOT,
                               env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return None, 'timed out after %d s' % TIMEOUT_S
        out = p.stdout.decode('utf-8', 'replace') + p.stderr.decode('utf-8', 'replace')
        return p.returncode, out

    # ---- the blocks of one file ----
    def check_file(self, path):
        rel = os.path.relpath(path, ROOT)
        with open(path, encoding='utf-8') as f:
            lines = f.read().split('\n')
        self.check_links(rel, path, lines)
        i = 0
        while i < len(lines):
            m = FENCE.match(lines[i])
            if not m:
                i += 1
                continue
            fence, kind, start = m.group(1), m.group(2), i
            j = i + 1
            while j < len(lines) and lines[j].strip() != fence:
                j += 1
            if j == len(lines):
                self.fail('%s:%d' % (rel, start + 1), 'a code block that is never closed')
                return
            body = lines[start + 1:j]
            marker = MARKER.match(lines[start - 1]) if start > 0 else None
            where = '%s:%d' % (rel, start + 1)
            if marker and marker.group(1) == 'skip':
                self.counts['skipped'] += 1
            elif marker and (marker.group(1) != 'dims' or kind != 'python'):
                self.fail(where, "marker '%s' above a ```%s block (skip above any block, dims above "
                          "a python block)" % (marker.group(1), kind))
            elif kind == 'sh':
                self.check_sh(rel, start + 2, body)
            elif kind == 'python':
                self.check_python(where, body, marker.group(2) if marker else None)
            elif kind == 'ax':
                self.check_ax(where, body)
            else:
                self.fail(where, "a ```%s block: the doc test runs sh, python and ax blocks; mark any other "
                          "with <!-- doctest: skip REASON --> on the line above" % kind)
            i = j + 1

    def check_links(self, rel, path, lines):
        for n, line in enumerate(lines):
            for target in LINK.findall(line):
                if re.match(r'^[a-z]+:', target) or target.startswith('#'):
                    continue
                file = target.split('#')[0]
                full = os.path.normpath(os.path.join(os.path.dirname(path), file))
                if not full.startswith(ROOT + os.sep) or not os.path.exists(full):
                    self.fail('%s:%d' % (rel, n + 1), 'the link %s names no file of the repository' % target)

    def check_sh(self, rel, first, body):
        self.counts['sh'] += 1
        cmds = []          # (line, command, expected lines)
        k = 0
        while k < len(body):
            line = body[k]
            if line.startswith('$ '):
                at, cmd = first + k, line[2:]
                while cmd.endswith('\\') and k + 1 < len(body):
                    k += 1
                    cmd = cmd + '\n' + body[k]
                cmds.append((at, cmd, []))
            elif not cmds:
                if line.strip():
                    self.fail('%s:%d' % (rel, first + k), 'text before the first `$ ` command of a sh block')
                    return
            else:
                cmds[-1][2].append(line)
            k += 1
        if not cmds:
            self.fail('%s:%d' % (rel, first - 1), 'a sh block without a `$ ` command')
        for at, cmd, want in cmds:
            self.counts['commands'] += 1
            where = '%s:%d' % (rel, at)
            m = EXIT.search(cmd.split('\n')[-1])
            want_rc = int(m.group(1)) if m else 0
            rc, out = self.run(cmd, shell=True)
            if rc is None:
                self.fail(where, '%s: %s' % (cmd, out))
                continue
            if rc != want_rc:
                self.fail(where, 'exit status %d, want %d: %s' % (rc, want_rc, cmd), out)
                continue
            while want and not want[-1].strip():
                want.pop()
            if want and not matches(want, out):
                self.fail(where, 'the output shown is not what `%s` prints' % cmd,
                          'shown:\n' + '\n'.join(want) + '\nprinted:\n' + out)

    def check_python(self, where, body, dims):
        self.counts['python'] += 1
        src = '\n'.join(body) + '\n'
        try:
            tree = ast.parse(src)
        except SyntaxError as e:
            self.fail(where, 'not Python: %s' % e)
            return
        fns = [d.name for d in tree.body if isinstance(d, ast.FunctionDef) and
               any(isinstance(a.annotation, ast.Constant) and isinstance(a.annotation.value, str)
                   for a in d.args.args)]
        if not fns:
            self.fail(where, 'a python block without a function with an annotated tensor parameter')
            return
        prog = os.path.join(self.tmp, 'block.py')
        with open(prog, 'w') as f:
            f.write(src)
        for fn in fns:
            rc, out = self.run(['axonc', 'graph', prog, '--fn', fn])
            if rc != 0:
                self.fail(where, 'axonc graph --fn %s does not accept the program' % fn, out)
                continue
            if dims:
                rc, out = self.run(['axonc', 'run', prog, '--fn', fn, '--dims', dims,
                                    '-o', os.path.join(self.tmp, 'out.npy')])
                if rc != 0:
                    self.fail(where, 'axonc run --fn %s --dims %s fails' % (fn, dims), out)

    def check_ax(self, where, body):
        self.counts['ax'] += 1
        spec = os.path.join(self.tmp, 'block.ax')
        with open(spec, 'w') as f:
            f.write('\n'.join(body) + '\n')
        rc, out = self.run(['axgen', '--check', spec])
        if rc != 0:
            self.fail(where, 'axgen --check does not accept the spec', out)


def matches(want, out):
    """the shown lines match the whole output: `...` alone on a line is any lines, in a line any text"""
    pat = []
    for w in want:
        if w.strip() == '...':
            pat.append(r'(?:[^\n]*\n)*?')
        else:
            pat.append('.*?'.join(re.escape(p) for p in w.rstrip().split('...')) + r'\n')
    text = '\n'.join(l.rstrip() for l in out.split('\n'))
    if not text.endswith('\n'):
        text += '\n'
    text = text.rstrip('\n') + '\n'
    return re.fullmatch(''.join(pat), text) is not None


def doc_files():
    docs = os.path.join(ROOT, 'docs')
    return [os.path.join(ROOT, 'README.md')] + sorted(
        os.path.join(docs, f) for f in os.listdir(docs) if f.endswith('.md'))


def main(argv):
    if len(argv) >= 2 and argv[1] == '--self-test':
        return self_test(argv[2:])
    if len(argv) < 2 or argv[1].startswith('-'):
        sys.stderr.write(__doc__.split('\n\n')[1] + '\n')
        return 2
    build = argv[1]
    for tool in ('axonc', 'axgen'):
        if not os.access(os.path.join(build, tool), os.X_OK):
            sys.stderr.write('doctest: no %s in %s (run make first)\n' % (tool, build))
            return 2
    files = [os.path.abspath(f) for f in argv[2:]] or doc_files()
    d = Doc(build)
    t0 = time.time()
    try:
        if not argv[2:]:
            with open(files[0], encoding='utf-8') as f:
                n = f.read().count('\n')
            if n > README_MAX_LINES:
                d.fail('README.md:%d' % n, 'README.md has %d lines, at most %d' % (n, README_MAX_LINES))
        for f in files:
            d.check_file(f)
    finally:
        shutil.rmtree(d.tmp, ignore_errors=True)
    c = d.counts
    print('doctest: %d files, %d blocks run (%d sh with %d commands, %d python, %d ax), %d skipped, '
          '%d failed, %.1f s' % (len(files), c['sh'] + c['python'] + c['ax'], c['sh'], c['commands'],
                                 c['python'], c['ax'], c['skipped'], d.failures, time.time() - t0))
    return 1 if d.failures else 0


def self_test(argv):
    """each fixture of tests/doctest/ says on its first line what the doc test must do with it:
    <!-- doctest self test: pass --> or <!-- doctest self test: fail at line N -->"""
    if len(argv) != 1:
        sys.stderr.write('usage: doctest.py --self-test BUILD\n')
        return 2
    fixtures = os.path.join(ROOT, 'tests', 'doctest')
    bad = 0
    names = sorted(f for f in os.listdir(fixtures) if f.endswith('.md'))
    for name in names:
        path = os.path.join(fixtures, name)
        with open(path, encoding='utf-8') as f:
            head = f.readline()
        m = re.match(r'<!-- doctest self test: (pass|fail at line (\d+)) -->', head)
        if not m:
            print('tests/doctest/%s:1: no "<!-- doctest self test: pass|fail at line N -->" line' % name)
            bad += 1
            continue
        p = subprocess.run([sys.executable, os.path.abspath(__file__), argv[0], path], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = p.stdout.decode('utf-8', 'replace')
        rel = 'tests/doctest/%s' % name
        if m.group(1) == 'pass':
            ok = p.returncode == 0
        else:
            ok = p.returncode == 1 and re.search(r'^%s:%s: ' % (re.escape(rel), m.group(2)), out, re.M)
        print('%s %s (%s)' % ('ok' if ok else 'FAIL', rel, m.group(1)))
        if not ok:
            bad += 1
            for line in out.rstrip('\n').split('\n')[-10:]:
                print('    ' + line)
    print('doctest self test: %d fixtures, %d passed, %d failed' % (len(names), len(names) - bad, bad))
    return 1 if bad or not names else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

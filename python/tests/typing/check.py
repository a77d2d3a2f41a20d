"""python.stubs: the generated type stubs agree with the module and type real
programs.

    check.py BUILT_PYTHON_DIR [MORE_PROGRAMS...]

1. mypy's stubtest compares the stubs with the imported module (allowlist.txt
   names what stubs cannot express);
2. mypy type-checks usage.py and the programs given (examples/python/train.py)
   without errors, and usage.py runs;
3. mypy reports an error on every line of rejected.py marked `# error`, and on
   no other line: stubs that typed everything as Any would fail here.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def mypy(files, built):
    env = dict(os.environ, MYPYPATH=built)
    r = subprocess.run([sys.executable, "-m", "mypy", "--check-untyped-defs", "--no-incremental",
                        "--cache-dir", os.devnull, "--ignore-missing-imports", *files],
                       env=env, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def main():
    built, programs = sys.argv[1], sys.argv[2:]
    failures = []

    r = subprocess.run([sys.executable, "-m", "mypy.stubtest", "plexus", "--allowlist",
                        os.path.join(HERE, "allowlist.txt")], capture_output=True, text=True)
    print(r.stdout + r.stderr)
    if r.returncode != 0:
        failures.append("stubtest found differences between the stubs and the module")

    code, out = mypy([os.path.join(HERE, "usage.py"), *programs], built)
    print(out)
    if code != 0:
        failures.append("mypy found errors in programs that must type-check")
    r = subprocess.run([sys.executable, os.path.join(HERE, "usage.py")], capture_output=True,
                       text=True)
    if r.returncode != 0:
        print(r.stdout + r.stderr)
        failures.append("usage.py does not run")

    rejected = os.path.join(HERE, "rejected.py")
    with open(rejected) as f:
        marked = {i for i, line in enumerate(f, 1) if line.rstrip().endswith("# error")}
    _, out = mypy([rejected], built)
    reported = {int(m.group(1)) for m in re.finditer(r"rejected\.py:(\d+): error", out)}
    print(out)
    if reported != marked:
        failures.append(f"rejected.py: errors expected on lines {sorted(marked)}, "
                        f"mypy reported lines {sorted(reported)}")

    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

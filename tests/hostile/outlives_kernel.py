"""Starts a process that leaves the kernel behind (a double fork into a new session), waits for the
grader to exit, then rewrites the class's reports (their names are on the grader's command line)."""
import os
import signal
import time

grader, argv = _grader()
reports = [argv[i + 1] for i, arg in enumerate(argv[:-1]) if arg in ("--json", "--csv", "--junit")]
if os.fork() == 0:
    try:
        os.setsid()
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        if os.fork() == 0:
            deadline = time.monotonic() + 1200
            while time.monotonic() < deadline:
                time.sleep(0.5)
                if grader is not None and not os.path.exists(f"/proc/{grader}"):
                    break
            for report in reports:
                if MARKER in report:
                    with open(report, "w") as file:
                        file.write("rewritten by a submission\n")
    finally:
        os._exit(0)
time.sleep(0.5)
print(f"a process outlives this kernel; the grader is {grader}, its reports {reports}")

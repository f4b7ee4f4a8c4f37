"""What a job leaves for people: outputs readable as the umask allows (not mkstemp's 0600), and
a log file with time stamps that also holds the job's warnings, library progress lines and
the traceback of a failure (which still fails the job, in Snakemake's usual way)."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import matplotlib
import pandas as pd
import pytest

from paramid import io

matplotlib.use("Agg")

STAMP = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}"


def _write_every_kind(folder: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    frame = pd.DataFrame({"x": [1.0, 2.0]})
    io.write_parquet(frame, folder / "a.parquet", units={"x": "m"}, meta={})
    io.write_json({"a": 1}, folder / "b.json")
    io.write_csv(frame, folder / "c.csv")
    io.write_markdown(frame, folder / "d.md")
    fig = plt.figure()
    io.save_figure(fig, folder / "e.png", folder / "e.pdf")
    plt.close(fig)
    return [folder / name for name in ("a.parquet", "b.json", "c.csv", "d.md", "e.png", "e.pdf")]


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_outputs_follow_the_umask(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        written = _write_every_kind(tmp_path / "results")
    finally:
        os.umask(old)
    assert {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in written} == {
        p.name: oct(mode) for p in written
    }
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == sorted(
        p.name for p in written
    )


def _run_job(
    tmp_path: Path, body: str, args: list[str] | None = None, script: str | None = None
) -> tuple[subprocess.CompletedProcess, str]:
    """Run ``body`` after ``log = io.start_log(...)`` in a fresh interpreter, as a job does
    (``script``: a whole program instead, e.g. an earlier call's ``out.args[2]``)."""
    log = tmp_path / "logs" / "job.log"
    code = script or f"from paramid import io\nlog = io.start_log({str(log)!r}, 'job')\n" + body
    # buffered, as usual, and without the machine's settings that print more (warnings, dev
    # mode, a startup file): its stderr is compared exactly
    unset = ("PYTHONUNBUFFERED", "PYTHONWARNINGS", "PYTHONDEVMODE", "PYTHONSTARTUP")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    out = subprocess.run(
        [sys.executable, "-c", code, *(args or [])],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    return out, log.read_text()


def test_job_log_has_time_stamps_warnings_and_library_progress(tmp_path):
    out, text = _run_job(
        tmp_path,
        textwrap.dedent(
            """\
            import logging, warnings
            log.info("own line")
            logging.getLogger("paramid.cec2022.runs").info("progress line")
            warnings.warn("careful here", RuntimeWarning)
            log.warning("the URDF disagrees")
            logging.getLogger("paramid.robot.study").warning("a short record")
            import time
            start = time.process_time()
            while time.process_time() - start < 0.3:
                pass
            """
        ),
    )
    assert out.returncode == 0, out.stderr
    lines = text.splitlines()
    # last line: the job's whole CPU (its start and imports included), for perf/speed.py
    cpu = re.fullmatch(STAMP + r".* INFO paramid.job: job CPU ([0-9.]+) s", lines[-1])
    assert cpu and 0.3 <= float(cpu.group(1)) < 30
    assert lines[0].endswith("INFO job: own line")
    assert lines[1].endswith("INFO paramid.cec2022.runs: progress line")
    assert "WARNING py.warnings" in lines[2] and "RuntimeWarning: careful here" in lines[2]
    assert all(re.match(STAMP, line) for line in lines[:3])
    stamped = [line for line in lines if re.match(STAMP, line)]
    assert stamped[3].endswith("WARNING job: the URDF disagrees")
    assert stamped[4].endswith("WARNING paramid.robot.study: a short record")
    assert "careful here" not in out.stderr  # a library's Python warning: the log's alone
    # the job's and the library's own warnings reach the terminal too, once each
    assert out.stderr.splitlines() == [
        "paramid job: WARNING the URDF disagrees",
        "paramid job: WARNING a short record",
    ]


def test_run_job_ends_the_process_after_the_exit_handlers(tmp_path):
    """io.run_job skips the interpreter's teardown only: an exit handler still runs, the log
    ends with the job's CPU line, a written output is whole, and a failing main still fails."""
    out, text = _run_job(
        tmp_path,
        textwrap.dedent(
            f"""\
            import atexit, sys
            import pandas as pd
            atexit.register(lambda: print("handler ran"))
            def main(smk):
                log.info("own line")
                io.write_csv(pd.DataFrame({{"x": range(10_000)}}), {str(tmp_path / "out.csv")!r})
                print("stdout kept", end="")
                sys.stderr.write("stderr kept")
                if smk == "fail":
                    raise ValueError("boom")
            io.run_job(main, sys.argv[1])
            print("never reached")
            """
        ),
        args=["ok"],
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == "stdout kepthandler ran\n"
    assert out.stderr == "stderr kept"
    lines = text.splitlines()
    assert lines[0].endswith("INFO job: own line")
    assert re.fullmatch(STAMP + r".* INFO paramid.job: job CPU ([0-9.]+) s", lines[-1])
    assert pd.read_csv(tmp_path / "out.csv")["x"].tolist() == list(range(10_000))

    out, text = _run_job(tmp_path, "", args=["fail"], script=out.args[2])
    assert out.returncode == 1
    assert "ValueError: boom" in text and "ValueError: boom" in out.stderr
    assert "never reached" not in out.stdout


def test_uncaught_exception_lands_in_the_log_and_still_fails(tmp_path):
    out, text = _run_job(tmp_path, "def deep():\n    raise ValueError('boom 42')\ndeep()\n")
    assert out.returncode == 1
    assert "CRITICAL paramid.job: job failed with an uncaught exception" in text
    assert "Traceback (most recent call last):" in text
    assert "in deep" in text and "ValueError: boom 42" in text
    assert "ValueError: boom 42" in out.stderr  # Python's own report is still printed


def test_a_user_error_is_its_message_once_on_the_terminal(tmp_path):
    """A UserError (bad input): no traceback, its message in the log and once on stderr (the
    terminal handler printed it a second time, as an ERROR line)."""
    body = "from paramid.errors import UserError\nraise UserError('robots.arm: joint_7 is still')\n"
    out, text = _run_job(tmp_path, body)
    assert out.returncode == 1
    assert re.search(rf"{STAMP} ERROR paramid.job: robots.arm: joint_7 is still", text)
    assert out.stderr.count("joint_7 is still") == 1, out.stderr
    assert "paramid: robots.arm: joint_7 is still" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_failing_script_rule_reports_its_log(tmp_path):
    """A script rule that warns and raises: Snakemake reports the error and prints the log
    (show-failed-logs), which holds the warning and the traceback."""
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "fails.py").write_text(
        textwrap.dedent(
            """\
            import warnings
            from paramid import io
            log = io.start_log(snakemake.log[0], "fails")
            warnings.warn("a warning of the job")
            raise RuntimeError("the job broke")
            """
        )
    )
    (tmp_path / "Snakefile").write_text(
        textwrap.dedent(
            """\
            rule fails:
                output: "results/out.txt"
                log: "logs/fails.log"
                script: "scripts/fails.py"
            """
        )
    )
    out = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "1", "--show-failed-logs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode != 0
    assert "Error in rule fails" in out.stderr
    log = (tmp_path / "logs/fails.log").read_text()
    assert "UserWarning: a warning of the job" in log
    assert "RuntimeError: the job broke" in log and "Traceback" in log
    assert "RuntimeError: the job broke" in out.stderr.split("Error in rule fails", 1)[1]

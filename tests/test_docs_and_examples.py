"""Every README snippet and example runs (with tiny budgets)."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_python_snippets_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert len(blocks) >= 2
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    assert (tmp_path / "leduc_cfr+.npz").exists()


def test_demo_runs_with_a_tiny_budget(tmp_path):
    out = tmp_path / "demo"
    subprocess.run([sys.executable, str(ROOT / "examples" / "demo.py"), "--out", str(out),
                    "--scale", "0.02", "--deals", "10"], check=True, capture_output=True)
    report = (out / "report.md").read_text()
    assert "## Agents: exact exploitability" in report and "| random |" in report
    assert "## Ratings (from the sampled matches)" in report
    for name in ("convergence.png", "crosstable.png", "policy-cfrplus.npz",
                 "tournament/index.html", "tournament/ratings.png", "results.sqlite"):
        assert (out / name).stat().st_size > 0


def test_readme_shell_commands_run(tmp_path):
    text = (ROOT / "README.md").read_text()
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for command in block.replace("\\\n", " ").splitlines():
            if command.startswith("nashzoo "):
                commands.append(command.split("#")[0].split())
    assert any(c[1] == "tournament" for c in commands) and any(c[1] == "solve" for c in commands)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for command in commands:
        if command[1] == "train":  # the README trains for minutes; CI for seconds
            command[command.index("--minutes") + 1] = "0.05"
        if command[1] == "tournament":
            subprocess.run([sys.executable, "-m", "nashzoo", *command[1:], "--quiet",
                            "--bootstrap", "20"], cwd=tmp_path, env=env,
                           check=True, capture_output=True)
        else:
            subprocess.run([sys.executable, "-m", "nashzoo", *command[1:]], cwd=tmp_path,
                           env=env, check=True, capture_output=True)
    assert (tmp_path / "tournament_report" / "index.html").exists()

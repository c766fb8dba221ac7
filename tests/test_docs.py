"""Every command in the docs is run by a test, so none can go stale.

The README and docs/*.md are read for their ``sh`` blocks; each command there is matched below to how it
is checked: run for real in a throwaway instance (the CLI's PDFs, exports, imports, the yearbook, a
backup; lint; a benchmark's options), or, where it cannot run here (a server that runs until stopped,
the whole suite, ``sudo`` on a server, PostgreSQL's tools), its program is asked whether it takes
exactly those options, and the files and units it names must exist. A command no rule matches fails the
test: a new one needs a line here saying how it is checked. The README itself: at most 120 lines, the
run command first, the test command under "## Run the tests" (what .ci/run runs), and its picture made
by a browser test."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

import pytest
from openpyxl import Workbook

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN = "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && flask --app scorekeeper serve"
TEST = 'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test]" && python -m pytest'


def sh_commands(path: Path) -> list[str]:
    """The commands of a file's ``sh`` blocks, one a line, with their comments taken off."""
    commands, inside = [], False
    for line in path.read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            inside = stripped == "```sh"
            continue
        if inside and stripped:
            commands.append(re.sub(r"\s{2,}#.*$", "", stripped))
    return commands


ALL = [(path.relative_to(ROOT).as_posix(), command) for path in DOCS for command in sh_commands(path)]


# Where a command that starts the app keeps its files, unless told otherwise: never the checkout's instance/.
SPARE_INSTANCE = tempfile.mkdtemp(prefix="scorekeeper-docs-")


def run(args, cwd: Path, env: dict | None = None, shell: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "SCOREKEEPER_INSTANCE_PATH": SPARE_INSTANCE, **(env or {})}
    return subprocess.run(args, cwd=cwd, env=env, shell=shell, capture_output=True, text=True, timeout=600,
                          executable="/bin/bash" if shell else None)


def flask(*args: str) -> list[str]:
    return [sys.executable, "-m", "flask", "--app", "scorekeeper", *args]


def options_of(command: str) -> list[str]:
    """The long and short options a command line uses (``--https``, ``-o``), values left out."""
    return [word.split("=")[0] for word in shlex.split(command) if re.fullmatch(r"--?[a-z][\w-]*(=.*)?", word)]


@cache
def help_of(help_args: tuple[str, ...]) -> subprocess.CompletedProcess:
    """A program's --help, asked once per test process (several commands of the docs share one)."""
    return run(list(help_args), ROOT)


def assert_takes(help_args: list[str], command: str) -> None:
    """The program's own --help lists every option the command uses."""
    shown = help_of(tuple(help_args))
    assert shown.returncode == 0, shown.stderr
    for option in options_of(command):
        assert option in shown.stdout, f"{command!r}: {option} is not an option any more"


# -- what cannot run here: the program takes the options, the files it names exist -------------------------


def check_serve(command: str, _) -> None:
    words = shlex.split(command)
    assert_takes(flask(words[3], "--help"), shlex.join(words[4:]))


def check_pytest(command: str, _) -> None:
    """The suite takes the command's options and environment: it collects with them. A command that
    names no tests collects one module here: the whole suite is what the test run itself collects
    (the test command itself is .ci/run's)."""
    env = dict(re.findall(r"^(\w+)=(\S+) ", command))
    args = [a for a in shlex.split(command[command.index("python -m pytest") + len("python -m pytest"):]) if a != "-n0"]
    named = [a for a in args if a.startswith("tests/")]
    collected = run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n0", "-p", "no:cacheprovider",
                     *args, *([] if named else ["tests/test_rules.py"])], ROOT, env)
    assert collected.returncode == 0 and " tests collected" in collected.stdout + collected.stderr, collected.stdout[-500:]


def check_readme_chain(command: str, scratch: Path) -> None:
    """``python3 -m venv … && pip install … && X``: the install names this project and its extra, and X is checked."""
    assert run(["bash", "-n", "-c", command], ROOT).returncode == 0
    package = re.search(r'pip install -e ("\.\[(\w+)\]"|\.)', command)
    assert package, command
    if package.group(2):
        assert f"{package.group(2)} = [" in (ROOT / "pyproject.toml").read_text()
    last = command.rsplit(" && ", 1)[1]
    dict(RULES)[rule_of(last)](last, scratch)


def check_gunicorn(command: str, scratch: Path) -> None:
    """gunicorn reads the configuration and loads the app (on a database of its own) without serving."""
    checked = run(["gunicorn", "--check-config", *shlex.split(command)[1:]], ROOT,
                  {"SCOREKEEPER_INSTANCE_PATH": str(scratch / "gunicorn")})
    assert checked.returncode == 0, checked.stderr[-800:]


def check_bench(command: str, _) -> None:
    """A benchmark takes its options (``bench/run.py --quick`` is run whole by .ci/run)."""
    words = shlex.split(command)
    assert_takes([sys.executable, words[1], "--help"], shlex.join(words[2:]))


def check_db(command: str, _) -> None:
    words = shlex.split(command)
    assert_takes(flask("db", words[4], "--help"), shlex.join(words[5:]))


def check_postgres_tool(command: str, _) -> None:
    """PostgreSQL's own programs (the ``postgresql`` package), with the options the docs give them."""
    words = shlex.split(command)
    program = next(w for w in words if w in ("createuser", "createdb", "pg_dump", "pg_restore"))
    found = shutil.which(program) or next(iter(sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{program}"))), None)
    if found is None:
        pytest.skip(f"{program} is not installed (Debian's postgresql)")
    assert_takes([str(found), "--help"], " ".join(words[words.index(program):]))


def check_apt(command: str, _) -> None:
    """Each package is one Debian has (where apt-cache is there to ask)."""
    if not shutil.which("apt-cache"):
        pytest.skip("not a Debian machine")
    packages = shlex.split(command)[3:]
    shown = run(["apt-cache", "show", "--no-all-versions", *packages], ROOT)
    missing = [package for package in packages if f"Package: {package}\n" not in shown.stdout]
    assert shown.returncode == 0 and not missing, f"Debian has no package {missing or shown.stderr}"


def check_server_setup(command: str, _) -> None:
    """A step on the family's server: it parses, and the repository's files it copies or starts exist."""
    assert run(["bash", "-n", "-c", command], ROOT).returncode == 0, command
    for path in re.findall(r"/srv/scorekeeper/([\w./*-]+)", command):
        if path not in (".venv", ".venv/bin/pip"):
            assert list(ROOT.glob(path)), f"{command!r}: the repository has no {path}"
    for unit in re.findall(r"\b(scorekeeper[\w-]*(?:\.timer)?)\b", command) if "systemctl" in command else []:
        assert list((ROOT / "deploy").glob(unit if "." in unit else f"{unit}.service")), f"no unit {unit} in deploy/"


def check_syntax(command: str, _) -> None:
    assert run(["bash", "-n", "-c", command], ROOT).returncode == 0, command


# -- what runs here, in a throwaway instance ---------------------------------------------------------------


def sheet_of_games(path: Path) -> None:
    """games.xlsx for import-sheet: four games of "Grandma" (the demo family's Grandma Rose), Bob and Cy,
    then one on row 14 whose round 3 does not say who went out (Ann's box left empty)."""
    book = Workbook()
    sheet = book.active
    sheet.append(["Date", "Player", *(f"Round {n}" for n in range(1, 8))])
    for day in range(1, 5):  # rows 2-13
        sheet.append([f"2026-05-0{day}", "Grandma", 0, 15, 20, 0, 5, 10, 0])
        sheet.append([None, "Bob", 10, 0, 25, 15, 0, 5, 15])
        sheet.append([None, "Cy", 5, 10, 0, 30, 20, 0, 50])
    sheet.append(["2026-05-09", "Ann", 0, 15, None, 0, 5, 10, 0])  # row 14
    sheet.append([None, "Bob", 10, 0, 10, 15, 0, 5, 15])
    sheet.append([None, "Cy", 5, 10, 10, 30, 20, 0, 50])
    book.save(path)


def run_cli(command: str, scratch: Path) -> None:
    """Run as written (through bash, in the scratch folder with its instance); a dry run that asks who
    went out must ask the question the next command of the docs answers."""
    done = run(command.replace("flask ", f"{sys.executable} -m flask ", 1), scratch, shell=True,
               env={"SCOREKEEPER_INSTANCE_PATH": str(scratch / "instance")})
    if "--dry-run" in command:
        assert done.returncode == 1 and "Answer with --out 14:3=NAME (Ann or Bob or Cy)" in done.stderr, done.stderr
        return
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    if " -o " in command:
        output = re.sub(r"\$\(date \+%F\)", "*", command).split(" -o ")[1].split()[0]
        written = list(scratch.glob(output))
        assert written and written[0].stat().st_size > 0, f"{command}: nothing written"


def check_lint(command: str, _) -> None:
    done = run(command, ROOT, shell=True)
    assert done.returncode == 0, done.stdout[-2000:]


def check_postgres_script(command: str, _) -> None:
    assert (ROOT / ".ci" / "postgres").is_file() and run(["bash", "-n", ".ci/postgres"], ROOT).returncode == 0


CLI = r"flask --app scorekeeper (sheet|rulecard|export|import|import-sheet|booklet|backup)\b.*"
RULES = [  # (what a command looks like, how it is checked)
    (r"python3 -m venv \.venv && .*", check_readme_chain),
    (r"flask --app scorekeeper (serve|run)\b.*", check_serve),
    (r"flask --app scorekeeper db \w+.*", check_db),
    (CLI, None),  # run in the order the docs give them: test_the_docs_cli_commands_run_as_written
    (r"(\w+=\S+ )?python -m pytest\b.*", check_pytest),
    (r"ruff check \. && lint-imports", check_lint),
    (r"bash \.ci/postgres \d+ \S+", check_postgres_script),
    (r"python bench/\w+\.py( --quick)?", check_bench),
    (r"gunicorn .*", check_gunicorn),
    (r"sudo apt-get install .*", check_apt),
    (r"(sudo -u postgres )?(createuser|createdb|pg_dump|pg_restore)\b.*", check_postgres_tool),
    (r"sudo (useradd|git clone|python3 -m venv|/srv/scorekeeper/\.venv/bin/pip|cp|systemctl|chmod)\b.*",
     check_server_setup),
    (r"(export \w+=|echo ).*", check_syntax),
]


def rule_of(command: str) -> str | None:
    return next((pattern for pattern, _ in RULES if re.fullmatch(pattern, command)), None)


def test_every_command_of_the_docs_has_a_check():
    unchecked = [(where, command) for where, command in ALL if rule_of(command) is None]
    assert unchecked == [], "commands in the docs that nothing here checks: add a rule to tests/test_docs.py"
    assert len(ALL) > 40  # the blocks were found


@pytest.fixture
def scratch(tmp_path):
    """A folder with an instance: a family with a demo history (game 1 among it) and games.xlsx."""
    folder = tmp_path
    (folder / "instance").mkdir()
    env = {"SCOREKEEPER_INSTANCE_PATH": str(folder / "instance")}
    from scorekeeper import create_app
    from scorekeeper.extensions import db
    from scorekeeper.models import Family

    app = create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder / 'instance' / 'scorekeeper.sqlite'}",
                      "SECRET_KEY": "docs test", "TESTING": True})
    with app.app_context():
        db.session.add(Family(name="The Parkers"))
        db.session.commit()
        db.engine.dispose()
    seeded = run(flask("seed-demo", "--games", "12", "--seed", "3"), folder, env)
    assert seeded.returncode == 0, seeded.stderr
    sheet_of_games(folder / "games.xlsx")
    return folder


OTHERS = [(where, command) for where, command in ALL if rule_of(command) not in (CLI, None)]


@pytest.mark.parametrize("where, command", OTHERS, ids=[f"{w}: {c[:60]}" for w, c in OTHERS])
def test_the_docs_command_works(where, command, tmp_path):
    dict(RULES)[rule_of(command)](command, tmp_path)


def test_the_docs_cli_commands_run_as_written(scratch):
    """Printing, importing from a sheet (the dry run first), exporting and importing, the yearbook and
    a backup: each as the docs write it, in their order, on one family's instance."""
    commands = [command for _, command in ALL if rule_of(command) == CLI]
    assert len(commands) >= 10
    for command in commands:
        run_cli(command, scratch)


def test_the_readme_is_a_front_door():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 120
    commands = sh_commands(ROOT / "README.md")
    assert commands[0] == RUN  # the run command comes first
    after = readme[readme.index("## Run the tests"):]
    assert re.match(r"## Run the tests\n\n```sh\n(.*)\n", after).group(1) == TEST  # what .ci/run runs
    for link in re.findall(r"\]\((docs/[\w.-]+\.md)\)", readme):
        assert (ROOT / link).is_file(), link


def test_every_picture_of_the_docs_exists_and_a_browser_test_makes_it():
    makers = "\n".join(p.read_text() for p in (ROOT / "tests" / "browser").glob("test_*.py"))
    for path in DOCS:
        for picture in re.findall(r'src="([^"]+\.png)"|\]\(([^)]+\.png)\)', path.read_text()):
            name = Path(next(p for p in picture if p))
            assert (path.parent / name).is_file(), f"{path.name}: {name} is missing"
            assert f'"{name.name}"' in makers, f"{name.name}: no browser test writes it"

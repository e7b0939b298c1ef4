"""Upload checks (archive caps, zip slip, bombs, manifests, policies) and token hashing."""

from __future__ import annotations

import io
import json
import stat
import zipfile
from dataclasses import replace

import pytest

from nashzoo.errors import AuthError, InvalidParameterError, SubmissionError
from nashzoo.leaderboard.accounts import add_user, authenticate, hash_token, verify_token
from nashzoo.leaderboard.bundles import Limits, check_archive, classify, extract_archive

from .conftest import LAST_LEGAL, bundle


def _zip(entries: dict[str, bytes], link: str | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
        if link:
            info = zipfile.ZipInfo(link)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(info, "/etc/passwd")
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("entries", "code"),
    [
        ({"../evil.py": b"x"}, "ZIP_SLIP"),
        ({"/etc/cron.d/evil": b"x"}, "ZIP_SLIP"),
        ({"a/../../evil": b"x"}, "ZIP_SLIP"),
        ({"C:/evil": b"x"}, "ZIP_SLIP"),
        ({f"f{i}.py": b"x" for i in range(11)}, "TOO_MANY_FILES"),
        ({"bomb.bin": b"\0" * 5_000_000}, "ZIP_BOMB"),
    ],
)
def test_archive_checks_refuse_what_is_dangerous(entries, code):
    limits = Limits(max_files=10, max_expanded_bytes=50_000_000, max_ratio=100)
    with pytest.raises(SubmissionError) as info:
        check_archive(_zip(entries), limits)
    assert info.value.code == code


def test_archive_checks_refuse_links_oversize_and_garbage():
    with pytest.raises(SubmissionError) as info:
        check_archive(_zip({"a.py": b"x"}, link="passwd"), Limits())
    assert info.value.code == "ZIP_LINK"
    with pytest.raises(SubmissionError) as info:
        check_archive(b"x" * 2000, Limits(max_bytes=1000))
    assert info.value.code == "TOO_LARGE"
    with pytest.raises(SubmissionError) as info:
        check_archive(b"PK\x03\x04 not really a zip", Limits())
    assert info.value.code == "BAD_ARCHIVE"
    # The expanded-size cap counts the bytes read, across entries.
    many = {f"part{i}.bin": b"\0" * 400_000 for i in range(5)}
    with pytest.raises(SubmissionError) as info:
        check_archive(_zip(many), Limits(max_expanded_bytes=1_500_000))
    assert info.value.code == "ZIP_BOMB"


def test_a_good_bundle_extracts_and_is_code(tmp_path):
    from nashzoo.envs.registration import make_game

    data = bundle(LAST_LEGAL, extra={"helpers/util.py": b"X = 1\n"})
    limits = Limits()
    assert classify("mine.zip", data, make_game("leduc_holdem"), "leduc_holdem", limits) == "code"
    extract_archive(data, tmp_path, limits)
    assert (tmp_path / "agent.py").read_text() == LAST_LEGAL
    assert (tmp_path / "helpers" / "util.py").read_bytes() == b"X = 1\n"


@pytest.mark.parametrize(
    ("toml", "code"),
    [
        ('entry = "agent"\ngames = ["leduc_holdem"]\n', "BAD_MANIFEST"),
        ('entry = "missing:make"\ngames = ["leduc_holdem"]\n', "BAD_MANIFEST"),
        ('entry = "agent:make"\ngames = ["kuhn_poker"]\n', "WRONG_GAME"),
        ('entry = "agent:make"\n', "BAD_MANIFEST"),
        ("entry = [broken", "BAD_MANIFEST"),
    ],
)
def test_bad_manifests_are_refused_with_their_code(toml, code):
    from nashzoo.envs.registration import make_game

    data = _zip({"agent.toml": toml.encode(), "agent.py": LAST_LEGAL.encode()})
    with pytest.raises(SubmissionError) as info:
        classify("b.zip", data, make_game("leduc_holdem"), "leduc_holdem", Limits())
    assert info.value.code == code


def test_policy_files_are_validated_as_data(tmp_path, cfr_policy_file):
    from nashzoo.envs.registration import make_game

    game = make_game("leduc_holdem")
    good = cfr_policy_file.read_bytes()
    assert classify("p.npz", good, game, "leduc_holdem", Limits()) == "policy"
    with pytest.raises(SubmissionError) as info:  # a Leduc policy is not a Kuhn policy
        classify("p.npz", good, make_game("kuhn_poker"), "kuhn_poker", Limits())
    assert info.value.code == "BAD_POLICY"
    with pytest.raises(SubmissionError) as info:
        classify("p.json", json.dumps({"nope": 1}).encode(), game, "leduc_holdem", Limits())
    assert info.value.code == "BAD_POLICY"
    with pytest.raises(SubmissionError) as info:
        classify("p.exe", b"MZ", game, "leduc_holdem", Limits())
    assert info.value.code == "BAD_FILE_TYPE"


def test_a_compressed_policy_bomb_is_refused_before_it_is_decompressed(tmp_path):
    """Issue 31, D7: a 1.5 MB .npz made the checker allocate 1.56 GB (every array was
    decompressed before any check). This one holds a 200 MB array of zeros in ~0.2 MB."""
    import tracemalloc

    import numpy as np

    from nashzoo.envs.registration import make_game

    buffer = io.BytesIO()
    n = 25_000_000  # float64: 200 MB expanded
    header = np.lib.format.header_data_from_array_1_0(np.zeros(1))
    header["shape"] = (n,)
    with (
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("probs.npy", "w", force_zip64=True) as member,
    ):
        np.lib.format.write_array_header_1_0(member, header)
        chunk = bytes(1 << 20)
        for _ in range(8 * n // len(chunk)):
            member.write(chunk)
    data = buffer.getvalue()
    assert len(data) < 1_000_000
    tracemalloc.start()
    try:
        with pytest.raises(SubmissionError) as info:
            classify("bomb.npz", data, make_game("leduc_holdem"), "leduc_holdem", Limits())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.code == "ZIP_BOMB" and "expands more than 200" in info.value.message
    assert peak < 20_000_000, peak


def test_tokens_are_stored_only_as_scrypt_hashes(board):
    stored = hash_token("nz_1_secret")
    assert stored.startswith("scrypt$") and "secret" not in stored
    assert verify_token("nz_1_secret", stored)
    assert not verify_token("nz_1_secreT", stored)
    assert hash_token("t") != hash_token("t")  # salted
    with board.session() as session:
        user, token = add_user(session, "alice", max_submissions=2)
        assert token not in user.token_hash
        assert authenticate(session, token).name == "alice"
        for bad in (None, "", "nz_1_short", token[:-1] + ("A" if token[-1] != "A" else "B")):
            with pytest.raises(AuthError):
                authenticate(session, bad)
        with pytest.raises(InvalidParameterError, match="taken"):
            add_user(session, "alice")
        with pytest.raises(InvalidParameterError, match="user name"):
            add_user(session, "<b>")


def test_per_user_limits(board, cfr_policy_file):
    with board.session() as session:
        user, _ = add_user(session, "bob", max_submissions=1, max_upload_bytes=50_000)
    data = cfr_policy_file.read_bytes()
    board.submit(user, "leduc_holdem", "one", "p.npz", data)
    with pytest.raises(AuthError, match="limit is 1"):
        board.submit(user, "leduc_holdem", "two", "p.npz", data)
    with board.session() as session:
        big, _ = add_user(session, "carol", max_upload_bytes=100)
    with pytest.raises(SubmissionError) as info:
        board.submit(big, "leduc_holdem", "x", "p.npz", data)
    assert info.value.code == "TOO_LARGE"


def test_two_uploads_at_once_cannot_pass_the_cap_together(board, cfr_policy_file, monkeypatch):
    """Issue 30: the cap was counted in one transaction and the upload inserted in another,
    with the file's checks between: two uploads at once both passed a cap of 1. Here both
    are held inside the checks until each has passed the early count."""
    import threading

    from nashzoo.leaderboard import submissions

    with board.session() as session:
        user, _ = add_user(session, "dora", max_submissions=1)
    both_checked = threading.Barrier(2, timeout=30)
    real_classify = submissions.classify

    def slow_classify(*args, **kwargs):
        both_checked.wait()  # each upload has counted 0 submissions by now
        return real_classify(*args, **kwargs)

    monkeypatch.setattr(submissions, "classify", slow_classify)
    data = cfr_policy_file.read_bytes()
    outcomes: list[str] = []

    def upload(name):
        try:
            board.submit(user, "leduc_holdem", name, "p.npz", data)
            outcomes.append("stored")
        except AuthError as exc:
            outcomes.append(f"refused: {exc}")

    threads = [threading.Thread(target=upload, args=(n,)) for n in ("one", "two")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcomes)[1].startswith("stored"), outcomes
    assert "limit is 1" in sorted(outcomes)[0], outcomes
    from sqlalchemy import func, select

    from nashzoo.leaderboard.models import Submission

    with board.session() as session:
        stored = select(func.count()).select_from(Submission).where(Submission.user_id == user.id)
        assert session.scalar(stored) == 1


def test_migrations_create_every_table_and_are_idempotent(board):
    from sqlalchemy import inspect

    from nashzoo.leaderboard.db import migrate

    names = set(inspect(board.engine).get_table_names())
    tables = {"lb_users", "lb_submissions", "lb_jobs", "lb_ratings", "lb_hands"}
    assert tables | {"lb_play_sessions", "lb_boards", "lb_rating_history"} <= names
    assert {"blocks", "tournaments"} <= names  # the result store shares the database
    migrate(board.engine)  # running them again changes nothing
    with board.engine.connect() as conn:
        from sqlalchemy import text

        assert conn.execute(text("select version_num from lb_alembic_version")).scalar() == "0006"


def test_an_older_database_is_upgraded_to_the_models(tmp_path):
    """A database left at revision 0001 is migrated in place; afterwards Alembic finds no
    difference between the tables and the SQLAlchemy models."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import create_engine, inspect

    from nashzoo.leaderboard.db import migrate
    from nashzoo.leaderboard.models import Base

    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    migrate(engine, "0001")
    assert "lb_play_sessions" not in inspect(engine).get_table_names()
    migrate(engine)
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"version_table": "lb_alembic_version"})
        diff = [
            d for d in compare_metadata(context, Base.metadata)
            if not (d[0] == "remove_table" and not d[1].name.startswith("lb_"))
        ]  # fmt: skip
    assert diff == []


def test_sandbox_user_ids_are_reserved_across_processes(monkeypatch, tmp_path):
    """Two workers starting sandboxes at once never get the same user id: each id is held
    by a file lock until its sandbox closes (here with a pool of two ids)."""
    import multiprocessing

    from nashzoo.errors import SandboxError
    from nashzoo.leaderboard import sandbox_host as sandbox  # the host's side reserves ids

    monkeypatch.setattr(sandbox, "UIDS", range(64990, 64992))
    monkeypatch.setattr(sandbox.tempfile, "gettempdir", lambda: str(tmp_path))
    first, lock1 = sandbox._reserve_uid()
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()

    def other():
        try:
            uid, _ = sandbox._reserve_uid()
            queue.put(uid)
            _, _ = sandbox._reserve_uid()
            queue.put("third reserved")
        except SandboxError as exc:
            queue.put(str(exc))

    proc = ctx.Process(target=other)
    proc.start()
    second = queue.get(timeout=30)
    third = queue.get(timeout=30)
    proc.join(timeout=30)
    assert {first, second} == {64990, 64991}
    assert "No free user id" in third
    again, lock2 = sandbox._reserve_uid()  # the child exited: its reservation went with it
    assert again == second
    with pytest.raises(SandboxError, match="No free user id"):
        sandbox._reserve_uid()  # both held here, even within one process
    lock1.close()
    assert sandbox._reserve_uid()[0] == first  # closing a sandbox frees its id
    lock2.close()


def test_verified_tokens_skip_scrypt_until_the_hash_changes(board, monkeypatch):
    from nashzoo.leaderboard import accounts
    from nashzoo.leaderboard.models import User

    calls = []
    real = accounts.verify_token
    monkeypatch.setattr(accounts, "verify_token", lambda t, h: calls.append(t) or real(t, h))
    cache = accounts.VerifiedTokens(ttl=60)
    with board.session() as session:
        user, token = add_user(session, "dana")
        assert cache.authenticate(session, token).name == "dana"
        assert cache.authenticate(session, token).name == "dana"
        assert len(calls) == 1  # the second view used the verified entry
        with pytest.raises(AuthError):
            cache.authenticate(session, token[:-1] + ("A" if token[-1] != "A" else "B"))
        # A replaced token: the old one stops working at once.
        session.get(User, user.id).token_hash = hash_token("nz_x")
        session.commit()
        with pytest.raises(AuthError, match="not valid"):
            cache.authenticate(session, token)
    expired = accounts.VerifiedTokens(ttl=0)
    with board.session() as session:
        _, token2 = add_user(session, "erin")
        expired.authenticate(session, token2)
        expired.authenticate(session, token2)
    assert len(calls) == 2 + 1 + 2  # bad token and replaced token checked by scrypt


def test_jobs_naming_a_removed_gauntlet_agent_fail_and_the_worker_lives_on(
    tmp_path, cfr_policy_file
):
    """Issue 31, D6: after a restart with a smaller gauntlet the worker died with KeyError
    on each job naming a removed agent, and the job stayed 'running' for ever."""
    from sqlalchemy import select

    from nashzoo.leaderboard.models import Job

    from .conftest import make_board

    first = make_board(tmp_path)  # gauntlet: random and cfr+
    with first.session() as session:
        user, _ = add_user(session, "erin")
    first.submit(user, "leduc_holdem", "cfr200", "p.npz", cfr_policy_file.read_bytes())
    first.run_job(first.claim("w0"))  # the validation queues its blocks against both
    smaller = make_board(tmp_path, gauntlet={"random": "random"})
    smaller.work("w1")  # returns: nothing raised, nothing left claimed
    with smaller.session() as session:
        jobs = session.scalars(select(Job).where(Job.kind == "match")).all()
    against_cfr = [j for j in jobs if "gauntlet:cfr+" in (j.entrant, j.opponent)]
    assert against_cfr and all(j.status == "failed" for j in against_cfr)
    assert all("no longer in leduc_holdem's gauntlet" in j.error for j in against_cfr)
    assert not [j for j in jobs if j.status in ("running", "queued")]
    assert any(j.status == "done" for j in jobs)  # the blocks against random were played


def test_a_changed_gauntlet_retires_its_removed_agents_and_uploads_still_rank(
    tmp_path, cfr_policy_file
):
    """Issue 85, item 2: after a restart whose gauntlet no longer holds ``random``, every
    new upload failed (its validation match asked the gauntlet for ``random``), and the
    removed agent stayed on the board (the refit, on fewer blocks, never replaced it)."""
    from sqlalchemy import select

    from nashzoo.leaderboard.models import Job, Rating, Submission

    from .conftest import make_board

    first = make_board(tmp_path, deals_per_block=40, blocks_per_pairing=1)
    with first.session() as session:
        erin, _ = add_user(session, "erin")
        fred, _ = add_user(session, "fred")
        gina, _ = add_user(session, "gina")
    first.submit(erin, "leduc_holdem", "cfr200", "p.npz", cfr_policy_file.read_bytes())
    first.work("w0")
    with first.session() as session:
        rated = set(session.scalars(select(Rating.entrant)))
    assert "gauntlet:random" in rated and "sub:1" in rated
    # a second upload validated, its blocks queued, when the server stops
    second = first.submit(fred, "leduc_holdem", "uniform", "u.json", _uniform_leduc_json())
    first.run_job(first.claim("w0"))
    smaller = make_board(
        tmp_path, gauntlet={"cfr+": "cfr+:50"}, deals_per_block=40, blocks_per_pairing=1
    )
    with smaller.session() as session:
        jobs = session.scalars(select(Job).where(Job.submission_id == second.id)).all()
        rated = set(session.scalars(select(Rating.entrant)))
    against_random = [j for j in jobs if j.opponent == "gauntlet:random"]
    assert against_random and all(j.status == "failed" for j in against_random)
    assert all(j.error.startswith("retired: gauntlet:random") for j in against_random)
    assert "gauntlet:random" not in rated
    assert {"gauntlet:cfr+", "sub:1"} <= rated
    third = smaller.submit(gina, "leduc_holdem", "cfr200 too", "p.npz",
                           cfr_policy_file.read_bytes())  # fmt: skip
    smaller.work("w1")
    with smaller.session() as session:
        sub = session.get(Submission, third.id)
        jobs = session.scalars(select(Job).where(Job.submission_id == third.id)).all()
    assert sub.status == "ranked", sub.validation_log
    opponents = {j.opponent for j in jobs if j.kind == "match"}
    assert opponents == {"gauntlet:cfr+", "sub:1", f"sub:{second.id}"}
    assert all(j.status == "done" for j in jobs)


def _uniform_leduc_json() -> bytes:
    import tempfile
    from pathlib import Path

    from nashzoo.envs.registration import make_game
    from nashzoo.tree.compile import compile_game
    from nashzoo.tree.policy import TabularPolicy

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "u.json"
        TabularPolicy.uniform(compile_game(make_game("leduc_holdem"))).save(path)
        return path.read_bytes()


def test_policies_solved_on_a_card_abstraction_are_validated_as_data(tmp_path, monkeypatch):
    import numpy as np

    from nashzoo.agents.cfr.abstract import AbstractionSolver
    from nashzoo.envs.registration import make_game

    from ..abstraction.stand_in import use_stand_in_buckets

    use_stand_in_buckets(monkeypatch)  # the real tables need a few minutes' sweep
    game = make_game("limit_holdem")
    solver = AbstractionSolver(game, "ehs2:169,4,3,3", seed=0, progress=False).iterate(200)
    path = solver.average_policy().save(tmp_path / "hulh.npz")
    good = path.read_bytes()
    assert classify("hulh.npz", good, game, "limit_holdem", Limits()) == "policy"
    with pytest.raises(SubmissionError) as info:  # a Hold'em policy is not a Leduc one
        classify("hulh.npz", good, make_game("leduc_holdem"), "leduc_holdem", Limits())
    assert info.value.code == "BAD_POLICY"
    # probabilities that are not probabilities
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["probs"] = -arrays["probs"]
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(SubmissionError) as info:
        classify("bad.npz", (tmp_path / "bad.npz").read_bytes(), game, "limit_holdem", Limits())
    assert info.value.code == "BAD_POLICY" and "negative" in str(info.value)


@pytest.fixture(scope="module")
def kuhn_nfsp_file(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    pytest.importorskip("torch")
    from nashzoo.agents.nfsp import NFSP
    from nashzoo.envs.registration import make_game

    path = tmp_path_factory.mktemp("nfsp") / "kuhn.pt"
    NFSP(make_game("kuhn_poker")).save(path)
    return path.read_bytes()


def test_a_pt_decompression_bomb_is_refused_before_torch_loads_it(kuhn_nfsp_file):
    """Issue 85, item 1: a 0.24 MB upload (a real NFSP file plus a 200 MB zero tensor
    under an unknown key, deflated) was accepted as ``nfsp`` after ``torch.load`` had
    inflated it in the web process."""
    import resource

    from nashzoo.envs.registration import make_game
    from nashzoo.testing.hostile import torch_bomb

    kuhn = make_game("kuhn_poker")
    assert classify("ok.pt", kuhn_nfsp_file, kuhn, "kuhn_poker", Limits()) == "nfsp"
    bomb = torch_bomb(kuhn_nfsp_file, megabytes=200)
    assert len(bomb) < 1_000_000  # small on the wire
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(SubmissionError) as info:
        classify("bomb.pt", bomb, kuhn, "kuhn_poker", Limits())
    assert info.value.code == "ZIP_BOMB"
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before  # kB
    assert grown < 50_000
    # past the archive caps, the format's entries: an unknown one is refused by name
    small = torch_bomb(kuhn_nfsp_file, megabytes=0.5, key="extra")
    with pytest.raises(SubmissionError) as info:
        classify("extra.pt", small, kuhn, "kuhn_poker", Limits())
    assert info.value.code == "BAD_CHECKPOINT"
    assert "unknown entries ['extra']" in info.value.message


def test_a_pt_upload_is_loaded_under_a_memory_limit(kuhn_nfsp_file):
    """Issue 85, item 1: with the archive caps lifted, what ``torch.load`` inflates is
    held by a child process's address-space limit, not by the server's memory."""
    import resource

    from nashzoo.envs.registration import make_game
    from nashzoo.testing.hostile import torch_bomb

    kuhn = make_game("kuhn_poker")
    loose = Limits(max_expanded_bytes=10**12, max_ratio=1e9)
    bomb = torch_bomb(kuhn_nfsp_file, megabytes=600, key="players_extra")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(SubmissionError) as info:
        classify("bomb.pt", bomb, kuhn, "kuhn_poker", replace(loose, check_memory_bytes=1 << 30))
    assert info.value.code == "TOO_LARGE", info.value.message
    assert "memory" in info.value.message
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50_000
    # the same file under the default limit loads, and is refused for its unknown entry
    with pytest.raises(SubmissionError) as info:
        classify("bomb.pt", bomb, kuhn, "kuhn_poker", loose)
    assert info.value.code == "BAD_CHECKPOINT"
    assert "players_extra" in info.value.message

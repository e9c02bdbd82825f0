"""Hosted games: seats and tokens, bot seats that play themselves, watchers, persistence.

A :class:`Session` is one hosted game: the engine state, its seats (humans with a secret
token, or bots), and its event list (one :class:`Event` per applied action, with the action
as every seat and a spectator perceives it, from ``State.describe_action``). The
:class:`SessionManager` owns the sessions, writes every action to the :class:`Store` before it
changes a session, resolves chance nodes with the game's seeded RNG, and runs bot seats'
searches on the :class:`SearchPool` from driver tasks on the server's asyncio loop (a bot
seat with one legal action plays it without a search).

Invariants: a failed call changes nothing (actions are applied to a clone, persisted, then
swapped in); a seat's view is computed from ``observation(seat)`` only; a spectator sees only
``describe_action(None, ...)`` labels and public facts (turn, move number, final scores).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import hmac
import json
import logging
import secrets
import threading
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ratai.engines import Game, IllegalActionError, State
from ratai.engines.api import CHANCE, TERMINAL, canonical_json

from .catalog import BotConfig, _cached_game, check_bot, make_game
from .config import Limits
from .errors import (
    Aborted,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    ServiceError,
    Unavailable,
    quote,
)
from .pool import SearchJob, SearchPool
from .positions import check_turn
from .store import Store, StoreError

__all__ = ["Seat", "Event", "Session", "SessionManager", "HumanSpec"]

log = logging.getLogger("ratai.service")

_SEED_MOD = 2**64
#: searches a hosted bot seat runs for one move when its worker dies under it (then a seeded
#: random legal move, so the game never stalls)
BOT_SEARCH_ATTEMPTS = 3
#: seconds between two log lines of one game's retried write (see ``_log_retry``)
RETRY_LOG_PERIOD_S = 60.0


@dataclass(frozen=True)
class HumanSpec:
    """A human seat in a ``create`` request."""

    display_name: str = ""


@dataclass
class Seat:
    index: int
    kind: str                       # "human" or the bot kind
    display_name: str = ""
    token_sha256: str | None = None
    bot: BotConfig | None = None

    def to_json(self) -> dict:
        return {"kind": self.kind, "display_name": self.display_name,
                "token_sha256": self.token_sha256,
                "bot": self.bot.describe() if self.bot else None}

    @classmethod
    def from_json(cls, index: int, d: dict) -> Seat:
        bot = BotConfig(**d["bot"]) if d.get("bot") else None
        return cls(index, d["kind"], d.get("display_name", ""), d.get("token_sha256"), bot)


@dataclass(frozen=True)
class Event:
    """One applied action: ``labels[v]`` as seat ``v`` sees it, ``labels[-1]`` a spectator."""

    move_number: int
    actor: int
    action: int
    labels: tuple[str, ...]
    own_label: str


@dataclass
class Session:
    id: str
    game: Game
    seed: int
    seats: list[Seat]
    state: State
    events: list[Event] = field(default_factory=list)
    cond: threading.Condition = field(default_factory=lambda: threading.Condition(
        threading.RLock()))
    last_used: float = field(default_factory=time.monotonic)
    #: the queue key its bot seats' searches are charged to: the creating client's (so one
    #: client's games take one turn of the search queue's round-robin, as its own hints do,
    #: and count against its ``max_running_per_peer`` / ``max_games_per_peer``); kept in the
    #: store, so a restored game keeps it. ``None`` (no owner named, or a game stored before
    #: owners were): the game's own key
    owner: str | None = None
    driving: bool = False
    closed: bool = False
    #: ``(loop, asyncio.Event)`` of the watch streams waiting for the next event
    waiters: set = field(default_factory=set)
    #: per retried-write event: (when last logged, failures not logged since)
    retry_log: dict = field(default_factory=dict)

    def notify(self) -> None:
        """Wake the watch streams (callable from any thread)."""
        for loop, ev in list(self.waiters):
            try:
                loop.call_soon_threadsafe(ev.set)
            except RuntimeError:  # that loop is closed
                self.waiters.discard((loop, ev))


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _sample_chance(state: State, seed: int, move_number: int) -> int:
    """The chance outcome drawn by the game's RNG at ``move_number`` (reproducible)."""
    outcomes = state.chance_outcomes()
    probs = np.array([p for _, p in outcomes], dtype=float)
    rng = np.random.default_rng([seed % _SEED_MOD, move_number])
    return int(outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0])


def _labels(state: State, n: int, action: int) -> tuple[tuple[str, ...], str]:
    cp = state.current_player()
    out = []
    for viewer in [*range(n), None]:
        try:
            out.append(str(state.describe_action(viewer, action)))
        except Exception:  # a label must never break a game
            out.append("(an action)")
    own = state.action_to_string(cp, action) if cp >= 0 else ""
    return tuple(out), own


class SessionManager:
    """All hosted games of one server.

    Args:
        store: the event log.
        pool: where bot seats search.
        limits: the server's limits.
    """

    def __init__(self, store: Store, pool: SearchPool, limits: Limits):
        self.store, self.pool, self.limits = store, pool, limits
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()
        self._create_lock = threading.Lock()   # held from the share checks to the insert
        #: threads for the short blocking calls (event-log writes, views) of the servicer
        self.io = ThreadPoolExecutor(8, thread_name_prefix="ratai-io")
        self.loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task] = set()
        self._stop = threading.Event()
        self._reaper = threading.Thread(target=self._reap, name="ratai-expiry", daemon=True)
        self._reaper.start()

    # ------------------------------------------------------------------ lifecycle
    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop that runs the bot seats' driver tasks (before :meth:`restore`)."""
        self.loop = loop

    def restore(self) -> int:
        """Reload every unfinished game from the store by replay; bots continue. Returns count.

        A game that does not replay (a malformed row, an illegal action) is logged and marked
        ``broken``; the others are restored. A chance outcome the store cannot record now (a
        full disk) is retried by the game's driver, so the server still starts."""
        count = 0
        for rec in self.store.load("active"):
            s = self._replay(rec)
            if s is None:
                continue
            with self._lock:
                self._sessions[s.id] = s
            self._advance(s)
            count += 1
        return count

    def _replay(self, rec) -> Session | None:
        """The session of a stored game, rebuilt by replaying its actions; None (logged, and
        marked ``broken`` in the store) if it does not replay."""
        try:
            if rec.error:
                raise ValueError(rec.error)
            game = _cached_game(rec.game, canonical_json(rec.params))
            seats = [Seat.from_json(i, d) for i, d in enumerate(rec.seats)]
            s = Session(rec.id, game, rec.seed, seats, game.new_initial_state(),
                        owner=rec.owner)
            n = game.num_players()
            for action, actor in zip(rec.actions, rec.actors, strict=True):
                labels, own = _labels(s.state, n, action)
                s.events.append(Event(s.state.move_number(), actor, action, labels, own))
                s.state.apply_action(action)
        except Exception as exc:
            log.error(json.dumps({"event": "restore_failed", "game_id": rec.id,
                                  "error": f"{type(exc).__name__}: {exc}"[:500]}))
            try:
                self.store.set_status(rec.id, "broken")
            except StoreError:
                log.exception("could not mark game %s broken", rec.id)
            return None
        return s

    def close(self, wait: bool = True) -> None:
        """Stop bots and watchers (the store keeps every game for the next start).

        Call with ``wait=False`` before shutting the search pool down, then again with
        ``wait=True`` to join the bot drivers.
        """
        self._stop.set()
        with self._lock:
            sessions = list(self._sessions.values())
        for s in sessions:
            with s.cond:
                s.closed = True
                s.cond.notify_all()
            s.notify()
        if self.loop is not None and not self.loop.is_closed():
            for task in list(self._tasks):
                self.loop.call_soon_threadsafe(task.cancel)
        if wait:
            self.io.shutdown(wait=True, cancel_futures=True)

    def __len__(self) -> int:
        with self._lock:
            return len(self._sessions)

    # ------------------------------------------------------------------ creation
    def create(self, game_name: str, params: dict | None,
               seats: list[HumanSpec | BotConfig], seed: int | None = None,
               owner: str | None = None) -> tuple[Session, list[tuple[int, str]]]:
        """Host a new game; returns the session and ``(seat, token)`` per human seat.

        ``owner``: the creating client's queue key (``"peer:<host>"``); its bot seats'
        searches are charged to it (see :attr:`Session.owner`).

        Raises:
            NotFound: unknown game. InvalidArgument: bad params or seats.
            ResourceExhausted: the server hosts ``max_games`` unfinished games, or
                ``owner`` already created ``max_games_per_peer`` unfinished ones.
        """
        game = make_game(game_name, params, self.limits)
        n = game.num_players()
        if len(seats) != n:
            raise InvalidArgument(f"{len(seats)} seats given; {game_name!r} with these params "
                                  f"has {n} (one SeatSpec per seat, in seat order)")
        seed = int(seed) % _SEED_MOD if seed is not None else secrets.randbits(63)
        built, tokens = [], []
        for i, spec in enumerate(seats):
            if isinstance(spec, BotConfig):
                if spec.seed is None:
                    spec = dataclasses.replace(spec, seed=(seed + 1_000_003 * (i + 1)) % 2**63,
                                               options=dict(spec.options))
                try:
                    bot = check_bot(game, i, spec, self.limits)
                except ServiceError as exc:
                    raise type(exc)(f"seat {i}: {exc}") from None
                built.append(Seat(i, bot.kind, bot=bot))
            elif isinstance(spec, HumanSpec):
                token = secrets.token_urlsafe(24)
                tokens.append((i, token))
                built.append(Seat(i, "human", spec.display_name[:100], _digest(token)))
            else:
                raise InvalidArgument(f"seat {i}: give human or bot")
        gid = secrets.token_hex(8)
        s = Session(gid, game, seed, built, game.new_initial_state(), owner=owner)
        # the shares are checked and the game added under one lock: concurrent creates from
        # one address (a tester's burst of 300 made 255 games past a share of 250) cannot
        # all pass the check before any is added
        with self._create_lock:
            self._check_share(owner)
            self._make_room()
            try:
                self.store.create(gid, game.name, json.loads(json.dumps(game.params)), seed,
                                  [x.to_json() for x in built], owner=owner)
            except StoreError as exc:
                raise Unavailable(f"the game was not created: {exc}") from None
            with self._lock:
                self._sessions[gid] = s
        self._advance(s)
        return s, tokens

    def games_per_peer(self) -> int:
        """Unfinished hosted games one peer may have created (``Limits.max_games_per_peer``;
        0: a quarter of ``max_games``), so one client cannot fill the server for everyone
        until the games expire."""
        return self.limits.max_games_per_peer or max(1, self.limits.max_games // 4)

    def _check_share(self, owner: str | None) -> None:
        if owner is None:
            return
        cap = self.games_per_peer()
        with self._lock:
            mine = sum(x.owner == owner and not x.state.is_terminal()
                       for x in self._sessions.values())
        if mine >= cap:
            raise ResourceExhausted(
                f"this address has {mine} unfinished hosted games, its share of the server "
                f"({cap}); finish one first (unplayed games expire after "
                f"{self.limits.idle_expiry_s:g} s idle)")

    def _make_room(self) -> None:
        with self._lock:
            if len(self._sessions) < self.limits.max_games:
                return
            done = [s for s in self._sessions.values() if s.state.is_terminal()]
            if not done:
                raise ResourceExhausted(f"the server hosts its limit of {self.limits.max_games} "
                                        f"games; finish or abandon one first")
            oldest = min(done, key=lambda s: s.last_used)
            del self._sessions[oldest.id]
        with oldest.cond:
            oldest.closed = True
            oldest.cond.notify_all()
        oldest.notify()

    # ------------------------------------------------------------------ lookup
    def get(self, game_id: str) -> Session:
        """The session ``game_id``.

        Raises:
            InvalidArgument: ``game_id`` is empty (a request that named no game).
            NotFound: unknown or expired.
        """
        if game_id == "":
            raise InvalidArgument("game_id is empty: name the hosted game (CreateGame's "
                                  "game_id)")
        with self._lock:
            s = self._sessions.get(game_id) if isinstance(game_id, str) else None
        if s is None and isinstance(game_id, str) and len(game_id) <= 64:
            s = self._load_finished(game_id)
        if s is None:
            raise NotFound(f"no hosted game {quote(game_id)} (unknown or expired)")
        s.last_used = time.monotonic()
        return s

    def _load_finished(self, game_id: str) -> Session | None:
        """A finished game the server no longer holds (after a restart, or made room for),
        replayed from the store so its seats and spectators can still read the result."""
        try:
            recs = self.store.load("finished", game_id)
        except Exception:  # noqa: BLE001 - a store that cannot be read: as unknown
            log.exception("could not read game %s from the store", game_id)
            return None
        s = self._replay(recs[0]) if recs else None
        if s is None or not s.state.is_terminal():
            return None
        with self._create_lock:
            try:
                self._make_room()
            except ResourceExhausted:  # full of unfinished games: answer without keeping it
                return s
            with self._lock:
                s = self._sessions.setdefault(game_id, s)
        return s

    @staticmethod
    def seat_of(s: Session, token: str, *, required: bool) -> int | None:
        """The human seat holding ``token``; None for an empty token when not ``required``.

        Raises:
            PermissionDenied: a token that is not one of this game's seat tokens (or none
                where one is required).
        """
        if not token:
            if required:
                raise PermissionDenied("seat_token is required for this call")
            return None
        d = _digest(token)
        for seat in s.seats:
            if seat.token_sha256 and hmac.compare_digest(seat.token_sha256, d):
                return seat.index
        raise PermissionDenied(f"the seat token is not valid for game {s.id!r}")

    @staticmethod
    def _render(st: State, seat: int) -> str:
        try:
            return str(st.render(seat))
        except Exception:  # noqa: BLE001 - a renderer's bug must not break the view
            log.exception("render failed")
            return ""

    # ------------------------------------------------------------------ views
    def view(self, s: Session, seat: int | None) -> dict:
        """What ``seat`` (None: a spectator) may know now, as a plain dict."""
        with s.cond:
            st = s.state
            cp = st.current_player()
            your_turn = seat is not None and cp == seat
            d = {
                "game_id": s.id, "game": s.game.name, "params": dict(s.game.params),
                "seat": -1 if seat is None else seat, "move_number": st.move_number(),
                "current_player": cp, "is_terminal": cp == TERMINAL, "your_turn": your_turn,
                "observation": st.observation(seat) if seat is not None else None,
                "legal_actions": ([(a, st.action_to_string(seat, a))
                                   for a in st.legal_actions(seat)] if your_turn else []),
                "scores": list(st.scores()) if cp == TERMINAL else [],
                "returns": list(st.returns()) if cp == TERMINAL else [],
                "seats": [(x.index, x.kind, x.display_name) for x in s.seats],
                "text": self._render(st, seat) if seat is not None else "",
            }
        if s.state.current_player() != TERMINAL:
            self._schedule(s)  # self-healing: a bot turn or chance node without a driver
        return d

    # ------------------------------------------------------------------ moves
    def apply(self, game_id: str, token: str, action: int | None = None,
              label: str | None = None, expected: int | None = None
              ) -> tuple[dict, int, bool]:
        """Apply a human seat's move; returns ``(view, applied_at, duplicate)``.

        Raises:
            NotFound, PermissionDenied, Aborted (stale ``expected``), FailedPrecondition
            (game over, not the seat's turn), InvalidArgument (illegal action, listing the
            legal ones).
        """
        s = self.get(game_id)
        with s.cond:
            seat = self.seat_of(s, token, required=True)
            st = s.state
            mv = st.move_number()
            if expected is not None and expected != mv:
                if 0 <= expected < len(s.events):
                    e = s.events[expected]
                    if e.actor == seat and ((action is not None and e.action == action)
                                            or (label is not None and e.own_label == label)):
                        return self.view(s, seat), expected, True
                raise Aborted(f"stale expected_move_number {expected}: the game is at move "
                              f"{mv}; read the state again")
            cp = st.current_player()
            if cp == TERMINAL:
                raise FailedPrecondition("the game is over")
            if cp != seat:
                raise FailedPrecondition(f"it is not seat {seat}'s turn (current player: {cp})")
            if action is None and label is None:
                raise InvalidArgument("give action or action_label")
            try:
                if action is None:
                    action = st.string_to_action(seat, label)
                self._apply(s, int(action), seat)
            except IllegalActionError as exc:
                raise InvalidArgument(str(exc)) from None
            self._advance(s)
            return self.view(s, seat), mv, False

    def _apply(self, s: Session, action: int, actor: int) -> None:
        """Check on a clone, persist, then swap in (caller holds ``s.cond``)."""
        st = s.state
        labels, own = _labels(st, s.game.num_players(), action)
        new = st.clone()
        new.apply_action(action)
        try:
            self.store.append(s.id, st.move_number(), actor, action, finished=new.is_terminal())
        except StoreError as exc:
            raise Unavailable(f"the move was not applied: {exc}") from None
        s.events.append(Event(st.move_number(), actor, action, labels, own))
        s.state = new
        s.cond.notify_all()
        s.notify()

    def _resolve_chance(self, s: Session) -> None:
        """Apply the seeded chance outcomes up to the next decision (caller may hold
        ``s.cond``; takes it). Raises Unavailable if the store cannot record one."""
        with s.cond:
            while s.state.current_player() == CHANCE and not s.closed:
                mv = s.state.move_number()
                self._apply(s, _sample_chance(s.state, s.seed, mv), CHANCE)

    @staticmethod
    def _log_retry(s: Session, event: str, exc: Exception) -> None:
        """Log a write the game retries every second: the first failure, then at most once a
        minute per game and event (with how many were not logged), so an outage of many
        games does not flood the log."""
        now = time.monotonic()
        last, quiet = s.retry_log.get(event, (None, 0))
        if last is not None and now - last < RETRY_LOG_PERIOD_S:
            s.retry_log[event] = (last, quiet + 1)
            return
        s.retry_log[event] = (now, 0)
        log.error(json.dumps({"event": event, "game_id": s.id, "error": str(exc)[:300],
                              "note": "retrying", "not_logged_since": quiet}))

    def _advance(self, s: Session) -> None:
        """After a recorded move: resolve the chance nodes that follow and start the driver of
        a bot seat to move. A chance outcome the store cannot record now is left to the
        game's driver, which retries it every second (the recorded move stands: the call
        that made it succeeded)."""
        try:
            self._resolve_chance(s)
        except Unavailable as exc:
            self._log_retry(s, "chance_not_recorded", exc)
        self._schedule(s)

    # ------------------------------------------------------------------ bot seats
    def _schedule(self, s: Session) -> None:
        """Start a driver task for the bot seat to move (or a chance node left unrecorded),
        if none runs (any thread)."""
        with s.cond:
            cp = s.state.current_player()
            if (s.closed or s.driving or self.loop is None or cp == TERMINAL
                    or (cp >= 0 and s.seats[cp].bot is None)):
                return
            s.driving = True
        try:
            self.loop.call_soon_threadsafe(self._spawn, s)
        except RuntimeError:  # the loop is closed: shutting down
            with s.cond:
                s.driving = False

    def _spawn(self, s: Session) -> None:
        task = self.loop.create_task(self._drive(s))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drive(self, s: Session) -> None:
        """Play the bot seats' turns of ``s`` until a human seat is to move or the game ends.

        A seat with one legal action plays it without a search. A move or chance outcome the
        event log cannot record is retried (every second) rather than lost or played out of
        order. A search whose worker died is run again (``BOT_SEARCH_ATTEMPTS`` in all)
        before the seat falls back to a seeded random move.
        """
        loop = asyncio.get_running_loop()
        try:
            while True:
                # a snapshot without the lock (a state is swapped whole, never changed in
                # place), so the loop never waits for another thread's event-log write
                st = s.state
                cp = st.current_player()
                if cp == CHANCE and not s.closed:
                    try:
                        await loop.run_in_executor(self.io, self._resolve_chance, s)
                    except Unavailable as exc:
                        self._log_retry(s, "chance_not_recorded", exc)
                        await asyncio.sleep(1.0)
                    continue
                if s.closed or cp < 0 or s.seats[cp].bot is None:
                    with s.cond:
                        if s.state is st:
                            s.driving = False
                            return
                    continue
                mv = st.move_number()
                legal = st.legal_actions(cp)
                job = None
                if len(legal) != 1:
                    lim = self.limits
                    job = SearchJob(s.game.name, json.loads(json.dumps(s.game.params)),
                                    st.serialize(), cp, s.seats[cp].bot,
                                    ponder_key=f"{s.id}:{cp}" if lim.ponder else None,
                                    ponder_seconds=min(lim.ponder_seconds, lim.max_seconds))
                action = int(legal[0]) if job is None else None
                for attempt in range(1, BOT_SEARCH_ATTEMPTS + 1 if job is not None else 1):
                    try:
                        res = await self.pool.run(job, s.owner or f"game:{s.id}", wait=True,
                                                  max_seconds=self.limits.max_seconds)
                        if res.analysis is not None:
                            action = int(res.analysis.best_action)
                        break
                    except (ServiceError, RuntimeError) as exc:  # RuntimeError: it raised
                        log.warning(json.dumps({"event": "bot_search_failed", "game_id": s.id,
                                                "seat": cp, "attempt": attempt,
                                                "error": str(exc)[:300]}))
                        if isinstance(exc, Unavailable) and self.pool._closed:
                            with s.cond:
                                s.driving = False
                            return
                        if not isinstance(exc, Unavailable) or s.closed:
                            break  # only a worker's death is worth a second search
                while True:  # the chosen move, until the log records it (no new search)
                    try:
                        again = await loop.run_in_executor(self.io, self._bot_move, s, cp, mv,
                                                           action)
                        break
                    except Unavailable as exc:
                        self._log_retry(s, "bot_move_not_recorded", exc)
                        await asyncio.sleep(1.0)
                        if s.closed or s.state.move_number() != mv:
                            again = True  # the loop reads the game again
                            break
                if not again:
                    return
        except asyncio.CancelledError:
            with s.cond:
                s.driving = False
            raise
        except Exception:
            log.exception("bot driver failed for game %s", s.id)
            with s.cond:
                s.driving = False

    def _bot_move(self, s: Session, cp: int, mv: int, action: int | None) -> bool:
        """Apply the bot's ``action`` at move ``mv`` (a seeded random legal one if the search
        failed); False when the driver should stop."""
        with s.cond:
            if s.closed:
                s.driving = False
                return False
            if s.state.move_number() != mv:
                return True
            legal = s.state.legal_actions(cp)
            if action not in legal:  # a failed search: play on rather than stall
                rng = np.random.default_rng([s.seed % _SEED_MOD, mv, 1])
                action = int(legal[int(rng.integers(len(legal)))])
                log.warning(json.dumps({"event": "bot_random_fallback", "game_id": s.id,
                                        "seat": cp, "move_number": mv}))
            self._apply(s, action, cp)
        self._advance(s)  # the move stands; an unrecorded chance outcome: this driver's loop
        return True

    # ------------------------------------------------------------------ hints
    def hint_state(self, game_id: str, token: str) -> tuple[Game, State, int]:
        """``(game, state copy, seat)`` for a hint to the token's seat (its turn only)."""
        s = self.get(game_id)
        with s.cond:
            seat = self.seat_of(s, token, required=True)
            check_turn(s.state, seat)
            return s.game, s.state.clone(), seat

    # ------------------------------------------------------------------ watching
    async def watch(self, game_id: str, token: str, since: int = 0) -> AsyncIterator[dict]:
        """Events of the game as the token's seat (or a spectator) perceives them.

        Yields dicts ``{"kind": "MOVE"|"TURN"|"GAME_OVER", ...}`` until the game is over (after
        the ``GAME_OVER`` event). Waiting holds no thread: the stream sleeps on an
        ``asyncio.Event`` that :meth:`Session.notify` sets.

        Raises:
            Unavailable: the server is shutting down (the game goes on after a restart).
            NotFound: the game expired while watched, or is unknown.
        """
        # off the loop: a finished game the server no longer holds is read from the store
        s = await asyncio.get_running_loop().run_in_executor(self.io, self.get, game_id)
        seat = self.seat_of(s, token, required=False)
        viewer = s.game.num_players() if seat is None else seat
        i = max(0, int(since))
        first = True
        ev = asyncio.Event()
        key = (asyncio.get_running_loop(), ev)
        s.waiters.add(key)
        try:
            while True:
                ev.clear()
                st = s.state          # swapped whole, never changed in place: no lock needed
                mv = st.move_number()
                new = s.events[i:mv]  # events[k] is the action applied at move k
                cp = st.current_player()
                closed = s.closed
                s.last_used = time.monotonic()
                for e in new:
                    yield {"kind": "MOVE", "move_number": e.move_number, "player": e.actor,
                           "label": e.labels[viewer],
                           "action": e.action if seat is not None and e.actor == seat else -1}
                i += len(new)
                if cp == TERMINAL:
                    yield {"kind": "GAME_OVER", "move_number": mv, "player": TERMINAL,
                           "scores": list(st.scores()), "returns": list(st.returns())}
                    return
                if new or first:
                    yield {"kind": "TURN", "move_number": mv, "player": cp,
                           "your_turn": seat is not None and cp == seat}
                first = False
                if closed:   # only an unfinished game's stream gets here
                    if self._stop.is_set():
                        raise Unavailable("the server is shutting down; watch again after "
                                          "it restarts (the game is kept)")
                    raise NotFound(f"game {game_id!r} expired (idle for "
                                   f"{self.limits.idle_expiry_s:g} s)")
                if s.state is st and not s.closed:
                    try:
                        await asyncio.wait_for(ev.wait(), 30.0)
                    except TimeoutError:
                        pass
        finally:
            s.waiters.discard(key)

    # ------------------------------------------------------------------ expiry
    def expire_idle(self, now: float | None = None) -> list[str]:
        """Drop games idle longer than ``idle_expiry_s``; returns their ids."""
        now = time.monotonic() if now is None else now
        with self._lock:
            idle = [s for s in self._sessions.values()
                    if now - s.last_used > self.limits.idle_expiry_s]
        old = []
        for s in idle:
            with s.cond:
                if not s.state.is_terminal():
                    try:   # first the log: a game it still calls active stays hosted
                        self.store.set_status(s.id, "expired")
                    except StoreError as exc:
                        self._log_retry(s, "expiry_not_recorded", exc)
                        continue
                s.closed = True
                s.cond.notify_all()
            with self._lock:
                self._sessions.pop(s.id, None)
            s.notify()
            old.append(s)
        return [s.id for s in old]

    def _reap(self) -> None:
        period = max(0.05, min(60.0, self.limits.idle_expiry_s / 4))
        while not self._stop.wait(period):
            try:
                self.expire_idle()
            except Exception:
                log.exception("expiry failed")

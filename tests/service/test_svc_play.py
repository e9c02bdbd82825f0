"""Full hosted games over gRPC for every registered game (issue 5, Tests: full game).

Humans are driven by the test with random legal moves; bot seats play themselves. The final
scores equal the engine's replay of the stored event log.
"""

from __future__ import annotations

import time

import pytest
from svc_helpers import play_to_end

from ratai.engines import load_game, registered_games


def seats_for(n: int) -> list:
    """Seat 0 human, seat 1 a tiny IS-MCTS, then alternating random bots and humans."""
    seats = ["human"]
    if n > 1:
        seats.append({"kind": "ismcts", "iterations": 3})
    for i in range(2, n):
        seats.append("random" if i % 2 == 0 else "human")
    return seats


@pytest.mark.parametrize("name", registered_games())
def test_full_game_over_grpc(client, server, name):
    game = load_game(name)
    n = game.num_players()
    created = client.create_game(name, seats_for(n), seed=11)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    assert sorted(tokens) == [i for i, s in enumerate(seats_for(n)) if s == "human"]
    final = play_to_end(client, created.game_id, tokens, seed=5)
    actions = server.store.actions(created.game_id)
    replay = game.state_from_history(actions)
    assert replay.is_terminal()
    assert list(final.scores) == replay.scores()
    assert list(final.returns) == replay.returns()
    assert final.move_number == len(actions)
    # the spectator stream replays the same game to its end
    events = list(client.watch_game(created.game_id, timeout=30))
    moves = [e for e in events if e.kind == e.MOVE]
    assert [e.move_number for e in moves] == list(range(len(actions)))
    assert events[-1].kind == events[-1].GAME_OVER
    assert list(events[-1].scores) == replay.scores()
    assert all(e.action == -1 for e in moves)  # spectators never get action ids


def test_all_bot_game_finishes_and_is_reproducible(client, server):
    """Bot seats play themselves; chance is the game's seeded RNG (same seed, same game)."""
    histories = []
    for _ in range(2):
        created = client.create_game("rat_trap", ["random", "random", "random"], seed=3)
        end = time.monotonic() + 30
        while not client.get_state(created.game_id).is_terminal:
            assert time.monotonic() < end
            time.sleep(0.01)
        histories.append(server.store.actions(created.game_id))
    assert histories[0] == histories[1]


def test_apply_by_label_and_idempotent_retry(client):
    """A retry with the same expected_move_number is recognised and applies nothing."""
    created = client.create_game("rat_trap", ["human", "human", "human"], seed=1)
    tokens = {t.seat: t.token for t in created.seat_tokens}
    view = client.get_state(created.game_id, tokens[0])
    cp = view.current_player
    mine = client.get_state(created.game_id, tokens[cp])
    choice = mine.legal_actions[0]
    r1 = client.apply_action(created.game_id, tokens[cp], choice.label,
                             expected_move_number=mine.move_number)
    assert not r1.duplicate and r1.applied_at == mine.move_number
    r2 = client.apply_action(created.game_id, tokens[cp], choice.action,
                             expected_move_number=mine.move_number)
    assert r2.duplicate and r2.applied_at == mine.move_number
    after = client.get_state(created.game_id, tokens[cp])
    assert after.move_number == r1.view.move_number

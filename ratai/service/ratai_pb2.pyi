# ruff: noqa
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ListGamesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games",)
    GAMES_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameType]
    def __init__(self, games: _Optional[_Iterable[_Union[GameType, _Mapping]]] = ...) -> None: ...

class GameType(_message.Message):
    __slots__ = ("name", "title", "summary", "min_players", "max_players", "params", "num_distinct_actions", "perfect_information", "variants", "max_game_length", "observation_schema_json", "observation_tensor_shape")
    class VariantsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _struct_pb2.Struct
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    MIN_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    NUM_DISTINCT_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    PERFECT_INFORMATION_FIELD_NUMBER: _ClassVar[int]
    VARIANTS_FIELD_NUMBER: _ClassVar[int]
    MAX_GAME_LENGTH_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_TENSOR_SHAPE_FIELD_NUMBER: _ClassVar[int]
    name: str
    title: str
    summary: str
    min_players: int
    max_players: int
    params: _containers.RepeatedCompositeFieldContainer[ParamSpec]
    num_distinct_actions: int
    perfect_information: bool
    variants: _containers.MessageMap[str, _struct_pb2.Struct]
    max_game_length: int
    observation_schema_json: str
    observation_tensor_shape: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, name: _Optional[str] = ..., title: _Optional[str] = ..., summary: _Optional[str] = ..., min_players: _Optional[int] = ..., max_players: _Optional[int] = ..., params: _Optional[_Iterable[_Union[ParamSpec, _Mapping]]] = ..., num_distinct_actions: _Optional[int] = ..., perfect_information: _Optional[bool] = ..., variants: _Optional[_Mapping[str, _struct_pb2.Struct]] = ..., max_game_length: _Optional[int] = ..., observation_schema_json: _Optional[str] = ..., observation_tensor_shape: _Optional[_Iterable[int]] = ...) -> None: ...

class ParamSpec(_message.Message):
    __slots__ = ("name", "default_value", "type", "choices", "allowed", "doc", "server_only")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_VALUE_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_FIELD_NUMBER: _ClassVar[int]
    DOC_FIELD_NUMBER: _ClassVar[int]
    SERVER_ONLY_FIELD_NUMBER: _ClassVar[int]
    name: str
    default_value: _struct_pb2.Value
    type: str
    choices: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Value]
    allowed: str
    doc: str
    server_only: bool
    def __init__(self, name: _Optional[str] = ..., default_value: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., type: _Optional[str] = ..., choices: _Optional[_Iterable[_Union[_struct_pb2.Value, _Mapping]]] = ..., allowed: _Optional[str] = ..., doc: _Optional[str] = ..., server_only: _Optional[bool] = ...) -> None: ...

class BotSpec(_message.Message):
    __slots__ = ("kind", "iterations", "time_limit_s", "max_depth", "seed", "options", "level")
    KIND_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    TIME_LIMIT_S_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    kind: str
    iterations: int
    time_limit_s: float
    max_depth: int
    seed: int
    options: _struct_pb2.Struct
    level: int
    def __init__(self, kind: _Optional[str] = ..., iterations: _Optional[int] = ..., time_limit_s: _Optional[float] = ..., max_depth: _Optional[int] = ..., seed: _Optional[int] = ..., options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., level: _Optional[int] = ...) -> None: ...

class HumanSeat(_message.Message):
    __slots__ = ("display_name",)
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    display_name: str
    def __init__(self, display_name: _Optional[str] = ...) -> None: ...

class SeatSpec(_message.Message):
    __slots__ = ("human", "bot")
    HUMAN_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    human: HumanSeat
    bot: BotSpec
    def __init__(self, human: _Optional[_Union[HumanSeat, _Mapping]] = ..., bot: _Optional[_Union[BotSpec, _Mapping]] = ...) -> None: ...

class CreateGameRequest(_message.Message):
    __slots__ = ("game", "params", "seats", "seed")
    GAME_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    game: str
    params: _struct_pb2.Struct
    seats: _containers.RepeatedCompositeFieldContainer[SeatSpec]
    seed: int
    def __init__(self, game: _Optional[str] = ..., params: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[SeatSpec, _Mapping]]] = ..., seed: _Optional[int] = ...) -> None: ...

class SeatToken(_message.Message):
    __slots__ = ("seat", "token")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    token: str
    def __init__(self, seat: _Optional[int] = ..., token: _Optional[str] = ...) -> None: ...

class CreateGameResponse(_message.Message):
    __slots__ = ("game_id", "seat_tokens", "view")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat_tokens: _containers.RepeatedCompositeFieldContainer[SeatToken]
    view: GameView
    def __init__(self, game_id: _Optional[str] = ..., seat_tokens: _Optional[_Iterable[_Union[SeatToken, _Mapping]]] = ..., view: _Optional[_Union[GameView, _Mapping]] = ...) -> None: ...

class GetStateRequest(_message.Message):
    __slots__ = ("game_id", "seat_token")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat_token: str
    def __init__(self, game_id: _Optional[str] = ..., seat_token: _Optional[str] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("action", "label")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    action: int
    label: str
    def __init__(self, action: _Optional[int] = ..., label: _Optional[str] = ...) -> None: ...

class SeatInfo(_message.Message):
    __slots__ = ("seat", "kind", "display_name")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: str
    display_name: str
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[str] = ..., display_name: _Optional[str] = ...) -> None: ...

class GameView(_message.Message):
    __slots__ = ("game_id", "game", "params", "seat", "move_number", "current_player", "is_terminal", "your_turn", "observation_json", "observation", "legal_actions", "scores", "returns", "seats", "text")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MOVE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PLAYER_FIELD_NUMBER: _ClassVar[int]
    IS_TERMINAL_FIELD_NUMBER: _ClassVar[int]
    YOUR_TURN_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_JSON_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    game: str
    params: _struct_pb2.Struct
    seat: int
    move_number: int
    current_player: int
    is_terminal: bool
    your_turn: bool
    observation_json: str
    observation: _struct_pb2.Struct
    legal_actions: _containers.RepeatedCompositeFieldContainer[LegalAction]
    scores: _containers.RepeatedScalarFieldContainer[float]
    returns: _containers.RepeatedScalarFieldContainer[float]
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    text: str
    def __init__(self, game_id: _Optional[str] = ..., game: _Optional[str] = ..., params: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., seat: _Optional[int] = ..., move_number: _Optional[int] = ..., current_player: _Optional[int] = ..., is_terminal: _Optional[bool] = ..., your_turn: _Optional[bool] = ..., observation_json: _Optional[str] = ..., observation: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[LegalAction, _Mapping]]] = ..., scores: _Optional[_Iterable[float]] = ..., returns: _Optional[_Iterable[float]] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., text: _Optional[str] = ...) -> None: ...

class ApplyActionRequest(_message.Message):
    __slots__ = ("game_id", "seat_token", "action", "action_label", "expected_move_number")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ACTION_LABEL_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_MOVE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat_token: str
    action: int
    action_label: str
    expected_move_number: int
    def __init__(self, game_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., action: _Optional[int] = ..., action_label: _Optional[str] = ..., expected_move_number: _Optional[int] = ...) -> None: ...

class ApplyActionResponse(_message.Message):
    __slots__ = ("view", "applied_at", "duplicate")
    VIEW_FIELD_NUMBER: _ClassVar[int]
    APPLIED_AT_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    view: GameView
    applied_at: int
    duplicate: bool
    def __init__(self, view: _Optional[_Union[GameView, _Mapping]] = ..., applied_at: _Optional[int] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class WatchGameRequest(_message.Message):
    __slots__ = ("game_id", "seat_token", "since_move_number")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SINCE_MOVE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat_token: str
    since_move_number: int
    def __init__(self, game_id: _Optional[str] = ..., seat_token: _Optional[str] = ..., since_move_number: _Optional[int] = ...) -> None: ...

class GameEvent(_message.Message):
    __slots__ = ("kind", "move_number", "player", "label", "action", "your_turn", "scores", "returns")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        KIND_UNSPECIFIED: _ClassVar[GameEvent.Kind]
        MOVE: _ClassVar[GameEvent.Kind]
        TURN: _ClassVar[GameEvent.Kind]
        GAME_OVER: _ClassVar[GameEvent.Kind]
    KIND_UNSPECIFIED: GameEvent.Kind
    MOVE: GameEvent.Kind
    TURN: GameEvent.Kind
    GAME_OVER: GameEvent.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    MOVE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    YOUR_TURN_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    kind: GameEvent.Kind
    move_number: int
    player: int
    label: str
    action: int
    your_turn: bool
    scores: _containers.RepeatedScalarFieldContainer[float]
    returns: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, kind: _Optional[_Union[GameEvent.Kind, str]] = ..., move_number: _Optional[int] = ..., player: _Optional[int] = ..., label: _Optional[str] = ..., action: _Optional[int] = ..., your_turn: _Optional[bool] = ..., scores: _Optional[_Iterable[float]] = ..., returns: _Optional[_Iterable[float]] = ...) -> None: ...

class ActionHistory(_message.Message):
    __slots__ = ("actions",)
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    actions: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, actions: _Optional[_Iterable[int]] = ...) -> None: ...

class Position(_message.Message):
    __slots__ = ("game", "params", "seat", "history", "serialized_state", "observation_json")
    GAME_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    SERIALIZED_STATE_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_JSON_FIELD_NUMBER: _ClassVar[int]
    game: str
    params: _struct_pb2.Struct
    seat: int
    history: ActionHistory
    serialized_state: bytes
    observation_json: str
    def __init__(self, game: _Optional[str] = ..., params: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., seat: _Optional[int] = ..., history: _Optional[_Union[ActionHistory, _Mapping]] = ..., serialized_state: _Optional[bytes] = ..., observation_json: _Optional[str] = ...) -> None: ...

class HostedSeat(_message.Message):
    __slots__ = ("game_id", "seat_token")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat_token: str
    def __init__(self, game_id: _Optional[str] = ..., seat_token: _Optional[str] = ...) -> None: ...

class SuggestMoveRequest(_message.Message):
    __slots__ = ("hosted", "position", "bot")
    HOSTED_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    hosted: HostedSeat
    position: Position
    bot: BotSpec
    def __init__(self, hosted: _Optional[_Union[HostedSeat, _Mapping]] = ..., position: _Optional[_Union[Position, _Mapping]] = ..., bot: _Optional[_Union[BotSpec, _Mapping]] = ...) -> None: ...

class AnalyzeRequest(_message.Message):
    __slots__ = ("hosted", "position", "bot", "report_every_iterations", "report_interval_ms")
    HOSTED_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    REPORT_EVERY_ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    REPORT_INTERVAL_MS_FIELD_NUMBER: _ClassVar[int]
    hosted: HostedSeat
    position: Position
    bot: BotSpec
    report_every_iterations: int
    report_interval_ms: int
    def __init__(self, hosted: _Optional[_Union[HostedSeat, _Mapping]] = ..., position: _Optional[_Union[Position, _Mapping]] = ..., bot: _Optional[_Union[BotSpec, _Mapping]] = ..., report_every_iterations: _Optional[int] = ..., report_interval_ms: _Optional[int] = ...) -> None: ...

class MoveStat(_message.Message):
    __slots__ = ("action", "label", "visits", "value", "prior", "pv", "values")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    VISITS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    PRIOR_FIELD_NUMBER: _ClassVar[int]
    PV_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    action: int
    label: str
    visits: int
    value: float
    prior: float
    pv: _containers.RepeatedCompositeFieldContainer[PVStep]
    values: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, action: _Optional[int] = ..., label: _Optional[str] = ..., visits: _Optional[int] = ..., value: _Optional[float] = ..., prior: _Optional[float] = ..., pv: _Optional[_Iterable[_Union[PVStep, _Mapping]]] = ..., values: _Optional[_Iterable[float]] = ...) -> None: ...

class PVStep(_message.Message):
    __slots__ = ("player", "action", "label")
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    player: int
    action: int
    label: str
    def __init__(self, player: _Optional[int] = ..., action: _Optional[int] = ..., label: _Optional[str] = ...) -> None: ...

class Analysis(_message.Message):
    __slots__ = ("best_action", "best_label", "moves", "pv", "iterations", "nodes", "max_depth", "elapsed_s", "seat", "kind", "seed", "has_seed", "final", "stop_reason")
    BEST_ACTION_FIELD_NUMBER: _ClassVar[int]
    BEST_LABEL_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    PV_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_S_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    HAS_SEED_FIELD_NUMBER: _ClassVar[int]
    FINAL_FIELD_NUMBER: _ClassVar[int]
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    best_action: int
    best_label: str
    moves: _containers.RepeatedCompositeFieldContainer[MoveStat]
    pv: _containers.RepeatedCompositeFieldContainer[PVStep]
    iterations: int
    nodes: int
    max_depth: int
    elapsed_s: float
    seat: int
    kind: str
    seed: int
    has_seed: bool
    final: bool
    stop_reason: str
    def __init__(self, best_action: _Optional[int] = ..., best_label: _Optional[str] = ..., moves: _Optional[_Iterable[_Union[MoveStat, _Mapping]]] = ..., pv: _Optional[_Iterable[_Union[PVStep, _Mapping]]] = ..., iterations: _Optional[int] = ..., nodes: _Optional[int] = ..., max_depth: _Optional[int] = ..., elapsed_s: _Optional[float] = ..., seat: _Optional[int] = ..., kind: _Optional[str] = ..., seed: _Optional[int] = ..., has_seed: _Optional[bool] = ..., final: _Optional[bool] = ..., stop_reason: _Optional[str] = ...) -> None: ...

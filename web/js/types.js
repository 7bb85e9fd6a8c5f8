// The server's JSON as the page reads it, for the type checker only (JSDoc
// typedefs; e2e/tsconfig.json checks web/js with them). No page loads this
// module: others name its types as `import('./types.js').Game`. The full
// shapes are in the server's OpenAPI document (/api/openapi.json).

/** @typedef {'white' | 'black'} Color */

/** A variant as the server describes it. @typedef {{ key: string, name: string, short?: string }} Variant */

/** A legal move: Merge-UCI and the readable notation. @typedef {{ uci: string, san: string }} LegalMove */

/**
 * A user as challenges and lists carry one (`LightUser`).
 * @typedef {{ id: string, name: string, title?: string, rating?: number, provisional?: boolean }} LightUser
 */

/**
 * The signed-in account (`GET /api/account`).
 * @typedef {{ id: string, username: string, title?: string, guest?: boolean, createdAt: number }} Account
 */

/**
 * A player of a game: a person (`id`) or the computer (`aiLevel`); the
 * rating in the game's variant, and a rated game's change.
 * @typedef {{ id?: string, name: string, title?: string, aiLevel?: number, rating?: number, provisional?: boolean, ratingDiff?: number | null }} Player
 */

/** A rematch: offered `by` a colour, `declined`, or started as `gameId`. @typedef {{ by?: Color, declined?: boolean, gameId?: string }} Rematch */

/** @typedef {{ white: number, black: number }} RatingDiff */

/**
 * A game (`GET /api/game/{id}`), and the game page's copy of it, which
 * pushed states update (`fromPush` in game.js).
 * @typedef {object} Game
 * @property {string} id
 * @property {Variant} variant
 * @property {string} initialFen Merge-FEN, or `startpos`
 * @property {string} fen
 * @property {Color} turn
 * @property {number} ply
 * @property {number} version
 * @property {string} status `started`, `mate`, `resign`, `stalemate`, `draw`, `aborted`, ...
 * @property {Color | null} winner
 * @property {string | null} reason
 * @property {string[]} moves Merge-UCI
 * @property {string[]} san
 * @property {string | null} lastMove
 * @property {boolean} check
 * @property {Color | null} drawOffer
 * @property {Color | null} takebackOffer
 * @property {Rematch | null} [rematch]
 * @property {Player} white
 * @property {Player} black
 * @property {LegalMove[]} legalMoves
 * @property {Color | null} you the viewer's colour, null for a spectator
 * @property {boolean} rated
 * @property {string} [source] how the game came about: `friend`, `ai`, `import` (a PGN's game: nobody plays it), ...
 * @property {RatingDiff | null} [ratingDiff]
 * @property {ClockConfig | null} [clock] a real-time game's clock (from the `gameFull` the page follows; `GET /api/game/{id}` has none)
 * @property {number} [daysPerTurn] a correspondence game's days per move (likewise)
 * @property {string} [speed] lichess's speed word (likewise)
 */

/** A real-time game's clock in `gameFull`, ms. @typedef {{ initial: number, increment: number }} ClockConfig */

/**
 * A game's full description on its feed (`{"t":"gameFull"}`, the board
 * stream's first line): the time control and the state as it is now.
 * @typedef {object} GameFull
 * @property {string} id
 * @property {string} speed `ultraBullet`, `bullet`, `blitz`, `rapid`, `classical` or `correspondence` (untimed games too)
 * @property {ClockConfig | null} [clock] a real-time game's clock; null or absent otherwise
 * @property {number} [daysPerTurn] a correspondence game's days per move
 * @property {GameState} state
 */

/**
 * A challenge's time control: a real-time clock (`limit`, `increment`
 * in seconds, `show` as players write it: `3+2`), days per move, or none.
 * @typedef {{ type: 'clock', limit: number, increment: number, show: string }
 *   | { type: 'correspondence', daysPerTurn: number }
 *   | { type: 'unlimited' }} TimeControl
 */

/**
 * A pushed state (`gameState`, or `gameFull`'s `state`): the server's
 * stream shape, lichess's names.
 * @typedef {object} GameState
 * @property {string} type
 * @property {string} moves space-separated Merge-UCI
 * @property {number} [wtime] White's time left, ms, when the server made the state (2147483647: untimed)
 * @property {number} [btime] Black's, likewise
 * @property {number} [winc] White's increment, ms
 * @property {number} [binc] Black's increment, ms
 * @property {string} status
 * @property {Color} [winner]
 * @property {string} [reason]
 * @property {boolean} wdraw
 * @property {boolean} bdraw
 * @property {boolean} wtakeback
 * @property {boolean} btakeback
 * @property {Rematch} [rematch]
 * @property {string} fen
 * @property {string | null} lastMove
 * @property {boolean} check
 * @property {Color} turn
 * @property {RatingDiff} [ratingDiff]
 * @property {number} ply
 * @property {number} version
 * @property {string[]} [san] (a server without them: the page fetches the game)
 * @property {LegalMove[]} [legalMoves]
 * @property {number} [done] analysis progress (`type` `analysisProgress`)
 * @property {number} [total]
 */

/**
 * An ongoing game as `GET /api/account/playing` lists it; the user events
 * `gameStart`, `gameFinish` and `yourMove` carry one too.
 * @typedef {object} PlayingGame
 * @property {string} gameId
 * @property {Color} color the viewer's
 * @property {string} fen
 * @property {boolean} isMyTurn
 * @property {string | null} [lastMove]
 * @property {number} [lastMoveAt] when the game last changed, ms
 * @property {{ id?: string, username: string, ai?: number | null, rating?: number, provisional?: boolean }} opponent
 * @property {Variant} variant
 * @property {string} [speed] lichess's speed word (`correspondence` for untimed games too)
 * @property {number} [secondsLeft] the viewer's time left, s (untimed: 2147483)
 */

/**
 * A user event (`GET /api/stream/event`, the socket's `{"t":"event"}`), or
 * the page's own `hello` when the socket opens. `by` names a player (draw
 * offers) or a side (takebacks, rematches).
 * @typedef {{ type: 'gameStart' | 'gameFinish' | 'yourMove' | 'timeRunningOut', game: PlayingGame }
 *   | { type: 'challenge' | 'challengeCanceled' | 'challengeDeclined', challenge: Challenge }
 *   | { type: 'drawOffer' | 'drawDeclined', gameId: string, by: { name: string } }
 *   | { type: 'takebackOffer' | 'takebackDeclined' | 'rematchOffer' | 'rematchDeclined', gameId: string, by: Color }
 *   | { type: 'hello', user: { id: string, name: string } | null }} UserEvent
 */

/**
 * A change of the lobby (the socket's `{"t":"lobby"}`): the whole list
 * first (`openChallenges`), then one challenge that came (`challenge`) or
 * went (`challengeAccepted`, `challengeCanceled`).
 * @typedef {{ type: 'openChallenges', challenges: Challenge[] } | { type: 'challenge' | 'challengeAccepted' | 'challengeCanceled', challenge: Challenge }} LobbyChange
 */

/**
 * A player you follow (`GET /api/rel/following`, one a line).
 * @typedef {object} Friend
 * @property {string} id
 * @property {string} username
 * @property {string} [title]
 * @property {boolean} online
 * @property {boolean} playing
 * @property {string} [playingId] their most recently changed game under way
 */

/**
 * The site's settings (`GET /api/account/preferences`, `prefs`).
 * @typedef {object} Prefs
 * @property {'green' | 'brown' | 'blue' | 'grey'} theme
 * @property {boolean} dark
 * @property {'small' | 'medium' | 'large'} pairSize
 * @property {boolean} sound
 * @property {boolean} confirmResign
 * @property {boolean} notifications
 * @property {'always' | 'registered' | 'rating' | 'never'} challenge who may challenge you
 */

/**
 * A challenge (`GET /api/challenge/{id}/show`, the lists, the lobby feed).
 * @typedef {object} Challenge
 * @property {string} id
 * @property {string} status `created`, `accepted`, `declined`, `canceled`, ...
 * @property {LightUser | null} challenger
 * @property {LightUser | null} destUser
 * @property {Variant} variant
 * @property {boolean} rated
 * @property {'white' | 'black' | 'random'} color
 * @property {'in' | 'out'} [direction] as seen by the signed-in user
 * @property {string} [initialFen]
 * @property {string} kind `direct`, `open`, ...
 * @property {number} createdAt
 * @property {string} [speed] lichess's speed word
 * @property {TimeControl} [timeControl]
 */

/**
 * A position checked by the rules (`POST /api/analysis`).
 * @typedef {object} AnalysisView
 * @property {Variant} variant
 * @property {string} [initialFen]
 * @property {string} fen
 * @property {Color} turn
 * @property {string} status
 * @property {Color} [winner]
 * @property {string} [reason]
 * @property {string[]} moves
 * @property {string[]} san
 * @property {string | null} lastMove
 * @property {boolean} check
 * @property {LegalMove[]} legalMoves
 */

/**
 * One ply of a game's computer analysis: the evaluation after it (`eval`
 * centipawns or `mate`), and a judgment with the better move.
 * @typedef {object} AnalysisEntry
 * @property {number} [eval]
 * @property {number | null} [mate]
 * @property {{ name: 'Inaccuracy' | 'Mistake' | 'Blunder' }} [judgment]
 * @property {string} [best]
 * @property {string} [bestSan]
 */

/** @typedef {{ accuracy: number | null, inaccuracy: number, mistake: number, blunder: number }} SideSummary */

/** A position of a game's review: `{ply, fen, lastMove, san, check}`, the start first. @typedef {{ ply: number, fen: string, lastMove?: string | null, san?: string, check: boolean }} ReviewPosition */

/**
 * A game's positions and computer analysis (`GET /api/game/{id}/analysis`).
 * @typedef {object} GameAnalysis
 * @property {string} state `none`, `queued`, `running`, `done`, ...
 * @property {boolean} [canRequest]
 * @property {{ done: number, total: number }} [progress]
 * @property {AnalysisEntry[]} [analysis]
 * @property {{ white: SideSummary, black: SideSummary }} [summary]
 * @property {ReviewPosition[]} [positions]
 */

/** A game's chat room: the players' or the spectators'. @typedef {'player' | 'spectator'} ChatRoom */

/** A line of a game's chat (`GET /api/board/game/{id}/chat`). @typedef {{ user: string, text: string, room: ChatRoom, createdAt: number }} ChatLine */

/**
 * A line said in a game's chat, pushed on the game's feed (`d` of a
 * `{"t":"gameState"}` frame whose `type` is `chatLine`).
 * @typedef {{ type: 'chatLine', username: string, text: string, room: ChatRoom }} ChatLineEvent
 */

/**
 * A variant's best game under way (`GET /api/tv/channels`, by the variant's name).
 * @typedef {{ user: LightUser, rating?: number, gameId: string, color: Color }} TvChannel
 */

/** An engine's score from White's view: centipawns, or mate in that many moves (negative: Black mates). @typedef {{ cp?: number, mate?: number | null }} Score */

/**
 * The engine's choice in a position (`POST /api/analysis/best`).
 * @typedef {object} BestMove
 * @property {string} fen
 * @property {string} uci
 * @property {string} san
 * @property {Score} score
 * @property {string[]} pv
 * @property {string[]} pvSan
 * @property {number} depth
 * @property {number} nodes
 * @property {number} timeMs
 */

/**
 * A line of the live engine's stream (`POST /api/analysis/stream`): `info`
 * after every search iteration, then `done` (with `reason`) or `error`.
 * @typedef {object} EngineLine
 * @property {'info' | 'done' | 'error'} type
 * @property {string} [fen]
 * @property {number} [depth]
 * @property {Score} [score]
 * @property {string[]} [pv]
 * @property {string[]} [san]
 * @property {number} [nodes]
 * @property {number} [timeMs]
 * @property {number} [nps]
 * @property {'stopped' | 'time' | 'nodes' | 'complete'} [reason]
 * @property {string} [error]
 * @property {ErrorCode} [code]
 */

/**
 * A game as the exports and lists carry it (`GET /api/games/user/{name}`).
 * @typedef {object} ExportedGame
 * @property {string} id
 * @property {boolean} rated
 * @property {string} variant the variant's key
 * @property {number} createdAt
 * @property {string} status
 * @property {Color} [winner]
 * @property {{ white: ExportPlayer, black: ExportPlayer }} players
 * @property {string} [speed] lichess's speed word (`correspondence` for untimed games too)
 * @property {number} [lastMoveAt]
 * @property {string} [source] `friend`, `ai`, `import`, ...
 * @property {string} [fen] the position now (Merge-FEN)
 * @property {string} [moves] space-separated Merge-UCI
 */

/** @typedef {{ user?: LightUser, aiLevel?: number, name?: string, rating?: number, ratingDiff?: number }} ExportPlayer */

/** Games won, drawn, lost (finished games, aborted ones left out). @typedef {{ all: number, rated?: number, win: number, loss: number, draw: number }} GameCounts */

/**
 * A rating in one variant: rated games, rating and deviation (rounded),
 * the change over the last 12 rated games, provisional or not.
 * @typedef {{ games: number, rating: number, rd: number, prog: number, prov?: boolean }} Perf
 */

/**
 * A user's public view (`GET /api/user/{username}`).
 * @typedef {object} UserProfile
 * @property {string} id
 * @property {string} username
 * @property {string} [title]
 * @property {boolean} online
 * @property {number} createdAt
 * @property {Record<string, Perf>} perfs by variant key, for the variants played rated
 * @property {GameCounts} count
 * @property {Record<string, GameCounts>} countByVariant
 * @property {boolean} [following] signed in, someone else's: whether you follow them
 * @property {boolean} [blocking] signed in, someone else's: whether you block them
 */

/**
 * One variant's rating history (`GET /api/user/{username}/rating-history`):
 * a point a day, `[year, month 0-11, day, rating]`.
 * @typedef {{ name: string, points: [number, number, number, number][] }} RatingHistory
 */

/**
 * The `code` of an error body (`{"error", "code"}`) and of a socket error
 * frame: a stable word for the kind of failure (docs/api.md, Errors). The
 * `error` beside it is English for people and may change; the page decides
 * by the code.
 * @typedef {'bad_request' | 'self_challenge' | 'unauthorized' | 'forbidden' | 'not_a_player' | 'not_yours'
 *   | 'challenge_refused' | 'no_computer' | 'not_found' | 'method_not_allowed' | 'timeout' | 'not_your_turn' | 'stale_move'
 *   | 'game_over' | 'not_abortable' | 'too_fast' | 'refused' | 'not_pending' | 'game_under_way'
 *   | 'conflict' | 'payload_too_large' | 'unsupported_media_type' | 'misdirected_request'
 *   | 'illegal_move' | 'bad_forecast' | 'unprocessable' | 'rate_limited' | 'internal' | 'unavailable'} ErrorCode
 */

/** An error answer of the API. @typedef {{ error: string, code: ErrorCode }} ErrorBody */

export {};

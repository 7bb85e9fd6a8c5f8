//! A game's chat: who may say what in which room, who reads which room,
//! and each line stored as one of the game's events (so that its followers
//! get it live, and a follower that reconnects gets what it missed).
//!
//! - The players' room: the two players write in it.
//! - The spectators' room: any registered player writes in it (guests only
//!   read), the players too (a bot greets its audience there).
//! - While the game is played, the players read only their room and the
//!   others only the spectators' (no advice from the audience reaches a
//!   player); once it is over, everyone reads both.
//! - A player who blocks someone takes no line from them in their games;
//!   a reader who muted someone does not see their lines.

use std::collections::HashSet;

use super::*;
use crate::model::{ChatRoom, is_guest};
use crate::store::{ChatAdded, ChatLimits, ChatLine, Relation, User};

/// How much a game's chat holds: each room 200 lines, 50 from one player.
pub const CHAT_LIMITS: ChatLimits = ChatLimits {
    per_room: 200,
    per_player: 50,
};

/// Most muted players a reader's filter holds (the newest).
const MUTED_READ: i64 = 1000;

/// Why a line was refused.
#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    /// The players' room, by someone who does not play.
    #[error("only the players of game {0} may write in its players' chat")]
    NotAPlayer(GameId),
    /// A guest account in the spectators' room.
    #[error("sign up to write in the spectators' chat")]
    Guest,
    /// A player of the game blocks the speaker.
    #[error("a player of this game does not take chat from you")]
    Blocked,
    /// The room is full.
    #[error("the {room} chat of game {id} is full ({} lines)", CHAT_LIMITS.per_room)]
    RoomFull {
        /// The game.
        id: GameId,
        /// The room's name.
        room: &'static str,
    },
    /// The speaker said the most one may in that room.
    #[error("you have said {} lines in this chat, the most one player may", CHAT_LIMITS.per_player)]
    SaidEnough,
    /// The game could not be read or written.
    #[error(transparent)]
    Game(#[from] GameError),
}

impl From<StoreError> for ChatError {
    fn from(e: StoreError) -> Self {
        ChatError::Game(e.into())
    }
}

/// Whether a reader sees a line said in `room` (see the module's rules).
pub fn visible(room: ChatRoom, reader_plays: bool, ongoing: bool) -> bool {
    !ongoing || (room == ChatRoom::Player) == reader_plays
}

/// What one reader of a game's chat is shown.
#[derive(Debug, Clone, Default)]
pub struct ChatReader {
    /// The reader's name, lower-cased: their own lines are always shown.
    pub me: Option<String>,
    /// Whether the reader plays in the game.
    pub plays: bool,
    /// Reads both rooms at all times: a bot playing (lichess's bot game
    /// stream carries both; lichess-bot answers its audience's commands).
    pub both_rooms: bool,
    /// The names (lower-cased) of the players the reader muted.
    pub muted: HashSet<String>,
}

impl ChatReader {
    /// Whether a line said by `speaker` in `room` is shown, the game being
    /// `ongoing` or not.
    pub fn shows(&self, room: ChatRoom, speaker: &str, ongoing: bool) -> bool {
        let key = speaker.to_lowercase();
        if self.me.as_ref() == Some(&key) {
            return true;
        }
        (self.both_rooms || visible(room, self.plays, ongoing)) && !self.muted.contains(&key)
    }

    /// [`ChatReader::shows`] for a line as followers get it.
    pub fn shows_line(&self, line: &views::ChatLineJson, ongoing: bool) -> bool {
        let room = if line.room.as_str() == ChatRoom::Player.as_str() {
            ChatRoom::Player
        } else {
            ChatRoom::Spectator
        };
        self.shows(room, &line.username, ongoing)
    }
}

impl Games {
    /// The reader's view of game `id`'s chat (`None`: signed out).
    pub async fn chat_reader(&self, id: &GameId, reader: Option<&User>) -> GameResult<ChatReader> {
        let Some(reader) = reader else {
            self.read(id, |_| ()).await?;
            return Ok(ChatReader::default());
        };
        let plays = self
            .read(id, |g| g.row.color_of(reader.id).is_some())
            .await?;
        let muted = self
            .store
            .related_users(Relation::Mute, reader.id, MUTED_READ)
            .await?
            .iter()
            .map(User::key)
            .collect();
        Ok(ChatReader {
            me: Some(reader.key()),
            plays,
            both_rooms: plays && reader.bot,
            muted,
        })
    }

    /// Game `id`'s chat as `reader` reads it, oldest first.
    pub async fn chat_for(&self, id: &GameId, reader: Option<&User>) -> GameResult<Vec<ChatLine>> {
        let view = self.chat_reader(id, reader).await?;
        let ongoing = self.read(id, |g| g.row.is_ongoing()).await?;
        let lines = self.store.chat_lines(id).await?;
        Ok(lines
            .into_iter()
            .filter(|l| view.shows(l.room, &l.username, ongoing))
            .collect())
    }

    /// Says `line` (checked as text already) as `by`: stored with its
    /// event under the game's next version, the game locked meanwhile so
    /// that no move of this node races it for that version.
    pub async fn say(&self, by: &User, line: ChatLine) -> Result<(), ChatError> {
        let id = line.game_id.clone();
        let (plays, players) = self
            .read(&id, |g| {
                (
                    g.row.color_of(by.id).is_some(),
                    [g.row.white_id, g.row.black_id],
                )
            })
            .await?;
        match line.room {
            ChatRoom::Player if !plays => return Err(ChatError::NotAPlayer(id)),
            ChatRoom::Spectator if !plays && is_guest(&by.username) => {
                return Err(ChatError::Guest);
            }
            _ => {}
        }
        for p in players.into_iter().flatten().filter(|&p| p != by.id) {
            if self.store.related(Relation::Block, p, by.id).await? {
                return Err(ChatError::Blocked);
            }
        }
        let event = views::event_text(&views::GameEvent::Chat(views::ChatLineJson {
            username: by.username.clone(),
            text: line.text.clone(),
            room: views::Word::of(line.room.as_str()),
        }));
        let mut guard = self.locked(&id).await?;
        // Taken out while the line commits: a request cancelled meanwhile
        // leaves the slot empty (read again), not at the old version.
        let mut live = guard.take().expect("loaded");
        match self.store.add_chat_line(&line, CHAT_LIMITS, &event).await? {
            ChatAdded::Stored(version) => {
                live.row.version = version;
                *guard = Some(live);
                Ok(())
            }
            ChatAdded::RoomFull => {
                *guard = Some(live);
                Err(ChatError::RoomFull {
                    id,
                    room: line.room.as_str(),
                })
            }
            ChatAdded::SaidEnough => {
                *guard = Some(live);
                Err(ChatError::SaidEnough)
            }
            ChatAdded::NoGame => Err(GameError::NotFound.into()),
        }
    }
}

//! The computer player: moves are chosen by the engine crate on tokio's
//! blocking pool, at most `ai_threads` at once (a semaphore), so that many
//! games against the computer never stall the async runtime that serves
//! human games. The computer's move then takes the same path as a human's
//! ([`crate::game::play_move`], guarded by the ply it was computed for).

use crate::error::{ApiError, ApiResult};
use crate::game::{self, Actor};
use crate::views::turn_of;
use crate::{AppState, store};

/// Whether the computer is to move in this game.
pub fn computer_to_move(game: &store::Game) -> bool {
    game.is_ongoing() && game.ai_level.is_some() && game.player_id(turn_of(game)).is_none()
}

/// Starts computing and playing the computer's move in the background.
pub fn schedule(state: AppState, game_id: String) {
    tokio::spawn(async move {
        if let Err(e) = run(&state, &game_id).await {
            tracing::warn!(game = %game_id, error = %e, "computer move failed");
        }
    });
}

async fn run(state: &AppState, id: &str) -> ApiResult<()> {
    let _permit = state
        .ai_slots
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| ApiError::Unavailable("shutting down".into()))?;
    for _ in 0..3 {
        let rec = game::load(state, id).await?;
        if !computer_to_move(&rec) {
            return Ok(());
        }
        let level = rec.ai_level.unwrap_or(1).clamp(1, 8) as u8;
        let rules_game = game::rebuild(&rec)?;
        let ply = rec.ply;
        let started = std::time::Instant::now();
        let chosen =
            tokio::task::spawn_blocking(move || chessmerge_engine::choose_move(&rules_game, level))
                .await
                .map_err(|e| ApiError::Internal(format!("engine task failed: {e}")))?;
        let Some(mv) = chosen else {
            // No legal move: the game is over and has been recorded so.
            return Ok(());
        };
        tracing::debug!(game = %id, %mv, level, ms = started.elapsed().as_millis() as u64, "computer move");
        if let Some(rest) = state.computer_min_think.checked_sub(started.elapsed()) {
            // Nothing is stored before the move is played: a restart in
            // this pause resumes the game (see `resume_all`).
            tokio::time::sleep(rest).await;
        }
        match game::play_move(
            state,
            id,
            Actor::Computer,
            &mv.to_string(),
            Some(ply),
            false,
        )
        .await
        {
            Ok(_) => return Ok(()),
            // The game changed while the engine thought (an abort, say): look again.
            Err(ApiError::Conflict(_)) => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// After a start, resumes every game where the computer is to move.
pub async fn resume_all(state: &AppState) -> ApiResult<()> {
    for g in state.store.ongoing_ai_games().await? {
        if computer_to_move(&g) {
            schedule(state.clone(), g.id);
        }
    }
    Ok(())
}

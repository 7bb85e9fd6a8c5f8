//! One description of each rule set. The move generator and `play` are
//! generic over [`Rules`], so every `if` on these constants is resolved at
//! compile time and `standard` pays nothing for merges.

use crate::types::{Role, Variant};

pub(crate) trait Rules: 'static {
    /// Units may be pairs at all.
    const PAIRS: bool;
    /// Fusion Chess: compounds of different simple pieces, royal
    /// compounds, fission only when unattacked and only to empty squares.
    const FUSION: bool;
    /// Pawns may step two squares from their second rank.
    const DOUBLE_STEP: bool;
    /// En passant exists.
    const EN_PASSANT: bool;
    /// A pawn may step forward onto a friendly single piece (ChessMerge,
    /// Chessplus).
    const PAWN_MERGES: bool;
    /// Chessplus: a pair holding a pawn that reaches the pawn's last rank
    /// becomes a queen (only choice). Otherwise (ChessMerge) one piece of
    /// the mover's choice.
    const PAIR_PROMOTES_TO_QUEEN_ONLY: bool;
    /// What a single pawn (or a pawn splitting away) may promote to.
    const PROMOTIONS: &'static [Role];
}

pub(crate) const QRBN: &[Role] = &[Role::Queen, Role::Rook, Role::Bishop, Role::Knight];
const RBN: &[Role] = &[Role::Rook, Role::Bishop, Role::Knight];
pub(crate) const Q_ONLY: &[Role] = &[Role::Queen];

pub(crate) struct ChessMergeRules;
pub(crate) struct ChessplusRules;
pub(crate) struct FusionRules;
pub(crate) struct StandardRules;

impl Rules for ChessMergeRules {
    const PAIRS: bool = true;
    const FUSION: bool = false;
    const DOUBLE_STEP: bool = false;
    const EN_PASSANT: bool = false;
    const PAWN_MERGES: bool = true;
    const PAIR_PROMOTES_TO_QUEEN_ONLY: bool = false;
    const PROMOTIONS: &'static [Role] = QRBN;
}

impl Rules for ChessplusRules {
    const PAIRS: bool = true;
    const FUSION: bool = false;
    const DOUBLE_STEP: bool = true;
    const EN_PASSANT: bool = true;
    const PAWN_MERGES: bool = true;
    const PAIR_PROMOTES_TO_QUEEN_ONLY: bool = true;
    const PROMOTIONS: &'static [Role] = QRBN;
}

impl Rules for FusionRules {
    const PAIRS: bool = true;
    const FUSION: bool = true;
    const DOUBLE_STEP: bool = true;
    const EN_PASSANT: bool = true;
    const PAWN_MERGES: bool = false;
    const PAIR_PROMOTES_TO_QUEEN_ONLY: bool = false;
    const PROMOTIONS: &'static [Role] = RBN;
}

impl Rules for StandardRules {
    const PAIRS: bool = false;
    const FUSION: bool = false;
    const DOUBLE_STEP: bool = true;
    const EN_PASSANT: bool = true;
    const PAWN_MERGES: bool = false;
    const PAIR_PROMOTES_TO_QUEEN_ONLY: bool = false;
    const PROMOTIONS: &'static [Role] = QRBN;
}

/// Calls `$body` with `$r` bound to the rules type of `$variant`.
macro_rules! with_rules {
    ($variant:expr, $r:ident => $body:expr) => {
        match $variant {
            $crate::types::Variant::ChessMerge => {
                type $r = $crate::variant::ChessMergeRules;
                $body
            }
            $crate::types::Variant::Chessplus => {
                type $r = $crate::variant::ChessplusRules;
                $body
            }
            $crate::types::Variant::Fusion => {
                type $r = $crate::variant::FusionRules;
                $body
            }
            $crate::types::Variant::Standard => {
                type $r = $crate::variant::StandardRules;
                $body
            }
        }
    };
}
pub(crate) use with_rules;

impl Variant {
    /// Whether a unit of these pieces may exist in this variant (used by
    /// the Merge-FEN reader). `second` is `None` for a single piece.
    pub(crate) fn allows_unit(self, first: Role, second: Option<Role>) -> bool {
        let Some(second) = second else {
            // Fusion has no single queen: its queen is a rook+bishop pair.
            return !(self == Variant::Fusion && first == Role::Queen);
        };
        match self {
            Variant::Standard => false,
            Variant::ChessMerge | Variant::Chessplus => first != Role::King && second != Role::King,
            Variant::Fusion => {
                // Canonical order: first >= second.
                matches!(
                    (first, second),
                    (Role::King, Role::Bishop | Role::Rook | Role::Knight)
                        | (Role::Rook, Role::Bishop | Role::Knight)
                        | (Role::Bishop, Role::Knight)
                )
            }
        }
    }
}

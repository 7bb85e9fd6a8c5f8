//! One description of each rule set: [`RuleSet`], one `const` per
//! variant. The move generator and `play` are generic over [`Rules`],
//! whose constants come from that description, so every `if` on them is
//! resolved at compile time and `standard` pays nothing for merges; the
//! notation, outcomes, [`crate::Game`] and the engine read the same
//! description at run time through [`Variant::rules`].

use crate::types::{Role, Variant};

/// Which positions are drawn because neither side can mate.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum InsufficientMaterial {
    /// No automatic draw for material (ChessMerge).
    Never,
    /// Only two lone kings (Fusion Chess).
    LoneKings,
    /// Each side has a lone king, or a king and one bishop or knight
    /// (Chessplus).
    KingAndMinorEach,
    /// The orthodox list: K v K, K+minor v K, K+B(s) v K+B(s) with all
    /// bishops on one colour.
    Orthodox,
}

/// Every fact of a rule set, in one place.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct RuleSet {
    /// The id used on the command line, in the API and in UCI.
    pub id: &'static str,
    /// The name shown to players and written in PGN `[Variant]` tags.
    pub name: &'static str,
    /// Units may be pairs at all.
    pub pairs: bool,
    /// Fusion Chess: compounds of different simple pieces, royal
    /// compounds, fission only when unattacked and only to empty squares;
    /// the letter `Q` is the rook+bishop compound.
    pub fusion: bool,
    /// Pawns may step two squares from their second rank.
    pub double_step: bool,
    /// En passant exists.
    pub en_passant: bool,
    /// A pawn may step forward onto a friendly single piece.
    pub pawn_merges: bool,
    /// A pair holding a pawn that reaches the pawn's last rank becomes a
    /// queen (the only choice). Otherwise one piece of the mover's choice
    /// replaces the pawn.
    pub pair_promotes_to_queen_only: bool,
    /// What a single pawn (or a pawn splitting away) may promote to.
    pub promotions: &'static [Role],
    /// Players' words for `promotions` ("add ...").
    pub promotion_words: &'static str,
    /// Players' words for a pair's promotion choices ("add ...").
    pub pair_promotion_words: &'static str,
    /// Castling needs a plain rook on the corner (no rook inside a pair),
    /// and any move touching the king's or the corner's square ends the
    /// right. Otherwise a rook in a pair castles too, and only the corner
    /// rook itself leaving or being taken ends the right.
    pub castling_plain_rook_only: bool,
    /// Pawns may stand on their own first rank.
    pub pawns_on_first_rank: bool,
    /// How often a position must occur for the game to be drawn
    /// (`None`: no repetition rule).
    pub repetition: Option<usize>,
    /// Halfmoves without a capture or pawn move that draw the game
    /// (`None`: no such rule).
    pub move_rule: Option<u32>,
    pub insufficient_material: InsufficientMaterial,
}

pub(crate) const QRBN: &[Role] = &[Role::Queen, Role::Rook, Role::Bishop, Role::Knight];
const RBN: &[Role] = &[Role::Rook, Role::Bishop, Role::Knight];
pub(crate) const Q_ONLY: &[Role] = &[Role::Queen];

impl RuleSet {
    /// ChessMerge: merges, no two-square step, no en passant, no automatic
    /// draws but stalemate.
    pub const CHESSMERGE: RuleSet = RuleSet {
        id: "chessmerge",
        name: "ChessMerge",
        pairs: true,
        fusion: false,
        double_step: false,
        en_passant: false,
        pawn_merges: true,
        pair_promotes_to_queen_only: false,
        promotions: QRBN,
        promotion_words: "q, r, b or n",
        pair_promotion_words: "q, r, b or n",
        castling_plain_rook_only: false,
        pawns_on_first_rank: true,
        repetition: None,
        move_rule: None,
        insufficient_material: InsufficientMaterial::Never,
    };

    /// Chessplus: merges, two-square steps, en passant, a pair promotes to
    /// a queen.
    pub const CHESSPLUS: RuleSet = RuleSet {
        id: "chessplus",
        name: "Chessplus",
        pairs: true,
        fusion: false,
        double_step: true,
        en_passant: true,
        pawn_merges: true,
        pair_promotes_to_queen_only: true,
        promotions: QRBN,
        promotion_words: "q, r, b or n",
        pair_promotion_words: "q (a pair reaching the last rank becomes a queen)",
        castling_plain_rook_only: false,
        pawns_on_first_rank: true,
        repetition: Some(3),
        move_rule: Some(100),
        insufficient_material: InsufficientMaterial::KingAndMinorEach,
    };

    /// Fusion Chess: compounds, fission, royal compounds.
    pub const FUSION: RuleSet = RuleSet {
        id: "fusion",
        name: "Fusion Chess",
        pairs: true,
        fusion: true,
        double_step: true,
        en_passant: true,
        pawn_merges: false,
        pair_promotes_to_queen_only: false,
        promotions: RBN,
        promotion_words: "r, b or n (Fusion pawns promote to rook, bishop or knight)",
        pair_promotion_words: "r, b or n (Fusion pawns promote to rook, bishop or knight)",
        castling_plain_rook_only: true,
        pawns_on_first_rank: false,
        repetition: Some(3),
        move_rule: Some(100),
        insufficient_material: InsufficientMaterial::LoneKings,
    };

    /// Orthodox chess.
    pub const STANDARD: RuleSet = RuleSet {
        id: "standard",
        name: "Standard",
        pairs: false,
        fusion: false,
        double_step: true,
        en_passant: true,
        pawn_merges: false,
        pair_promotes_to_queen_only: false,
        promotions: QRBN,
        promotion_words: "q, r, b or n",
        pair_promotion_words: "q, r, b or n",
        castling_plain_rook_only: true,
        pawns_on_first_rank: false,
        repetition: Some(3),
        move_rule: Some(100),
        insufficient_material: InsufficientMaterial::Orthodox,
    };

    /// What a pawn may promote to; `pair_result` when the promoting unit
    /// is (or by merging becomes) a pair.
    pub fn promotion_choices(&self, pair_result: bool) -> &'static [Role] {
        if pair_result && self.pair_promotes_to_queen_only {
            Q_ONLY
        } else {
            self.promotions
        }
    }

    /// Players' words for [`RuleSet::promotion_choices`].
    pub fn promotion_words(&self, pair_result: bool) -> &'static str {
        if pair_result {
            self.pair_promotion_words
        } else {
            self.promotion_words
        }
    }
}

/// The compile-time view of a [`RuleSet`], for the generic move generator
/// and `play`. Each type's constants are read from its `SET`.
pub(crate) trait Rules: 'static {
    const SET: RuleSet;
    const PAIRS: bool = Self::SET.pairs;
    const FUSION: bool = Self::SET.fusion;
    const DOUBLE_STEP: bool = Self::SET.double_step;
    const EN_PASSANT: bool = Self::SET.en_passant;
    const PAWN_MERGES: bool = Self::SET.pawn_merges;
    const PAIR_PROMOTES_TO_QUEEN_ONLY: bool = Self::SET.pair_promotes_to_queen_only;
    const PROMOTIONS: &'static [Role] = Self::SET.promotions;
    const CASTLING_PLAIN_ROOK_ONLY: bool = Self::SET.castling_plain_rook_only;
}

pub(crate) struct ChessMergeRules;
pub(crate) struct ChessplusRules;
pub(crate) struct FusionRules;
pub(crate) struct StandardRules;

impl Rules for ChessMergeRules {
    const SET: RuleSet = RuleSet::CHESSMERGE;
}
impl Rules for ChessplusRules {
    const SET: RuleSet = RuleSet::CHESSPLUS;
}
impl Rules for FusionRules {
    const SET: RuleSet = RuleSet::FUSION;
}
impl Rules for StandardRules {
    const SET: RuleSet = RuleSet::STANDARD;
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
    /// The variant's description: every fact of its rule set.
    #[inline]
    pub const fn rules(self) -> &'static RuleSet {
        with_rules!(self, R => &R::SET)
    }

    /// Whether a unit of these pieces may exist in this variant (used by
    /// the Merge-FEN reader). `second` is `None` for a single piece.
    pub(crate) fn allows_unit(self, first: Role, second: Option<Role>) -> bool {
        let rules = self.rules();
        let Some(second) = second else {
            // Fusion has no single queen: its queen is a rook+bishop pair.
            return !(rules.fusion && first == Role::Queen);
        };
        if !rules.pairs {
            false
        } else if rules.fusion {
            // Canonical order: first >= second.
            matches!(
                (first, second),
                (Role::King, Role::Bishop | Role::Rook | Role::Knight)
                    | (Role::Rook, Role::Bishop | Role::Knight)
                    | (Role::Bishop, Role::Knight)
            )
        } else {
            first != Role::King && second != Role::King
        }
    }
}

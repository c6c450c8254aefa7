//! The evaluation's weights: the hand-set values from before the tuner (`ryoshi tune` rewrites
//! this file).

use super::eval::Weights;

pub const WEIGHTS: Weights = Weights {
    value: [0, 1000, 850, 600, 550, 400, 350, 100],
    promoted: [0, 1300, 1100, 600, 600, 600, 600, 550],
    hidden: [0, -350, -120, -50, -20, 0, 10, 15, 20],
    exposed: 600,
    mobility: 3,
    hand_bonus_percent: 8,
    tempo: 20,
};

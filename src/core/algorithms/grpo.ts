/**
 * GRPO (Shao et al. 2024, DeepSeekMath §4.1): the group-relative outcome advantage A_ep (math/advantages.ts, with
 * GiGPO's step term when ω > 0) is the advantage of every action token; PPO-clip does the rest (math/losses.ts).
 */
import { ALGORITHM_CATALOG } from '../algorithm-catalog';
import { NO_INIT, NO_SKILL_METRICS, type Algorithm } from './types';

/** GRPO as a registered algorithm: no settings of its own, no inputs besides the config. */
export const grpo: Algorithm = {
  ...ALGORITHM_CATALOG.grpo,
  options: () => ({}),
  readInit: NO_INIT,
  create() {
    return {
      async advantages(ctx) {
        return {
          adv: ctx.aEpTok,
          metrics: { ...NO_SKILL_METRICS, analyzerFailureReasons: {} },
          cost: { tokens: 0, sequences: 0 },
        };
      },
    };
  },
};

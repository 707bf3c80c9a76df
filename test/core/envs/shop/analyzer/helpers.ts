/** Test helpers for the shop analyzer: test/core/envs/play-helpers.ts bound to shop/default. */
import { shop, type ShopEnv } from '../../../../../src/core/envs/shop';
import { playHelpers, type Chooser as AnyChooser } from '../../play-helpers';

export { actionOf, type Played } from '../../play-helpers';
/** What to do at each step (play-helpers.ts `Chooser`), with the shop env for its hidden state. */
export type Chooser = AnyChooser<ShopEnv>;

/** Play (maxSteps or a purchase end the episode), a fixed action list, one action after a replayed prefix. */
export const { play, playActions, tryAt } = playHelpers<ShopEnv>(shop, 'default');

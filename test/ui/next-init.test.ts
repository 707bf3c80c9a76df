/**
 * The Weights panel's "Next run: starts from …": after Runs → Resume the configured run started from its own
 * checkpoint, which no new run uses; the label then says what the page's settings give, in the worker's words.
 */
import { describe, expect, it } from 'vitest';
import { nextInitLabel } from '../../src/ui/state/next-init';
import { resolveStart } from '../../src/worker/weights';
import { DEFAULT_CONFIG } from '../../src/core/run/config';

const config = { ...DEFAULT_CONFIG, env: 'household', preset: 'easy', model: 'nano', seed: 7 } as typeof DEFAULT_CONFIG;
const resumedFrom = { label: 'run "grpo household/easy" from its checkpoint of step 2' };

describe('nextInitLabel', () => {
  it("a configured run: the worker's label of its start", () => {
    expect(nextInitLabel({ initSource: { label: 'fresh weights from seed 7' }, resumed: false, config })).toBe(
      'fresh weights from seed 7',
    );
    expect(nextInitLabel({ initSource: null, resumed: false, config })).toBe('');
  });

  it("after Resume: not the resumed run's checkpoint, but the base policy or fresh weights the settings give", () => {
    expect(nextInitLabel({ initSource: resumedFrom, resumed: true, config: { ...config, init: 'base' } })).toBe(
      'the base policy (pretrained; household/easy, nano)',
    );
    expect(nextInitLabel({ initSource: resumedFrom, resumed: true, config: { ...config, init: 'scratch' } })).toBe(
      'fresh weights from seed 7',
    );
  });

  it('says what the worker resolves for the same settings (scratch, and base when it loads)', async () => {
    const store = {} as never;
    const scratch = await resolveStart({ ...config, init: 'scratch' }, store, async () => {
      throw new Error('unused');
    });
    expect(nextInitLabel({ initSource: resumedFrom, resumed: true, config: { ...config, init: 'scratch' } })).toBe(
      scratch.init.label,
    );
    const loadBase = async () =>
      ({ bytes: new Uint8Array(0), manifest: { env: 'household', preset: 'easy', model: 'nano' } }) as never;
    const base = await resolveStart({ ...config, init: 'base' }, store, loadBase);
    expect(nextInitLabel({ initSource: resumedFrom, resumed: true, config: { ...config, init: 'base' } })).toBe(
      base.init.label,
    );
  });
});

/**
 * The Python clients of `npm run serve` (integrations/python/) under `npm test`: runs their stdlib unittest suite,
 * which starts the server and drives 16 × 8 environments of every registered env through the verl-agent-shaped
 * manager and the TRL-shaped environment class with the expert's actions, then checks the client's errors: a row
 * without `index` (or a bad one), a row of another env or preset (refused before any env is reset), a `/create`
 * failing midway (the envs made are closed), no server at the URL; and against a stand-in server, replies the
 * server never sends: a `/reset` reply without `task`, fields of another type, a reply that is not JSON, a `/create`
 * reply without `id` midway (the envs made are closed), a server that closes every connection unanswered, one slower
 * than the client's timeout (integrations/python/tests/).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const PYTHON = '/usr/bin/python3';

describe('Python integrations (verl-agent, TRL) against npm run serve', () => {
  it('python3 -m unittest: every test passes', () => {
    expect(
      existsSync(PYTHON),
      `${PYTHON} is missing: the Python integration tests need it (Debian: apt-get install python3)`,
    ).toBe(true);
    const r = spawnSync(PYTHON, ['-m', 'unittest', 'discover', '-v', '-s', 'integrations/python/tests'], {
      encoding: 'utf8',
      timeout: 540_000,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
    });
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.error, `could not run ${PYTHON}: ${r.error?.message}`).toBeUndefined();
    expect(r.status, out).toBe(0);
    for (const name of [
      'test_groups_of_8_solved_by_the_expert (test_integrations.VerlAgentTest',
      'test_projection_and_refusals (test_integrations.VerlAgentTest',
      'test_128_rollouts_solved_by_the_expert (test_integrations.TrlTest',
      'test_a_row_without_index_names_the_field (test_integrations.ClientErrorsTest',
      'test_a_row_of_another_preset_or_env_is_refused_before_any_reset (test_integrations.ClientErrorsTest',
      'test_create_failing_midway_closes_the_envs_made (test_integrations.ClientErrorsTest',
      'test_no_server_names_the_url_and_the_fix (test_integrations.ClientErrorsTest',
      'test_a_reset_reply_without_a_field_names_it_and_the_reply (test_client_replies.ClientRepliesTest',
      'test_fields_of_another_type_and_replies_not_objects_are_named (test_client_replies.ClientRepliesTest',
      'test_a_create_reply_without_id_midway_closes_the_envs_made (test_client_replies.ClientRepliesTest',
      'test_a_server_that_hangs_up_names_the_url_and_the_fix (test_client_replies.ClientRepliesTest',
      'test_a_server_slower_than_the_timeout_names_the_route_the_timeout_and_the_fix ' +
        '(test_client_replies.ClientRepliesTest',
    ])
      expect(out).toMatch(new RegExp(`${name.replace(/[().]/g, '\\$&')}[^\\n]*\\) \\.\\.\\. ok`));
    expect(out).toMatch(/Ran 12 tests in [\d.]+s\n\nOK/);
  });
});

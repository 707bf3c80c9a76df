/**
 * The run's phase as one state machine (pure; the page's one owner of it is `RunPhaseState` in
 * run-phase.svelte.ts, driven by run-control.svelte.ts). Every click on Start / Pause / Step / Stop / Reset and every
 * answer of the training worker is an event; `transition` gives the next phase and the one thing the page must do
 * for it (its effect), or null when the event is not legal in that phase — it is then ignored and nothing happens.
 *
 * Phases: `booting` (a worker or its backend starting), `ready` (a configured run, no update yet), `starting` (Start
 * pressed: the worker is made ready — a configure, a new worker — then training begins), `running`, `stepping` (one
 * update, from Step's press to its answer), `pausing` (a Pause waits for the trainer's next safe point, or for a
 * Start still getting ready, which then does not train), `paused`, `stopping` (Stop waits for the safe point),
 * `resetting` (the run is being discarded and configured again: Reset, a settings change, Resume of a stored run),
 * `done` (finished or stopped), `error`.
 *
 * Worker events: `worker-ready` (a configure or a new worker answered: a fresh run), `worker-started` (the start or
 * step call was sent), `worker-step` (an event of the run being trained arrived: legal only while one is trained,
 * so the late events of a discarded run are dropped), `worker-paused` / `worker-done` (the call's answer), and
 * `worker-error` (a failed call, configure or backend, or a crash: legal everywhere). The page sends only the
 * answers of the current call; answers of a call that a Reset or a new worker made stale are not events.
 */

/** The run's phase (module comment). */
export type RunPhase =
  | 'booting'
  | 'ready'
  | 'starting'
  | 'running'
  | 'stepping'
  | 'pausing'
  | 'paused'
  | 'stopping'
  | 'resetting'
  | 'done'
  | 'error';

/** Everything that can change the phase (module comment): the user's clicks, the page's own steps, the worker. */
export type RunPhaseEvent =
  | 'click-start'
  | 'click-pause'
  | 'click-step'
  | 'click-stop'
  | 'click-reset'
  /** A new worker is started (a backend change, the page opening). */
  | 'boot'
  /** The run is replaced by a configure the page makes (a settings change, Start from a checkpoint, Resume). */
  | 'reconfigure'
  | 'worker-ready'
  | 'worker-started'
  | 'worker-step'
  | 'worker-paused'
  | 'worker-done'
  | 'worker-error';

/**
 * What the page does for an accepted event: `start` / `step` make the worker ready and then send the start or step
 * call; `pause` asks a call in flight to stop at its next safe point (a Start or Step still getting ready just does
 * not train); `stop` ends the run at its next safe point; `reset` configures the run again (discarding it). Null:
 * only the phase changes.
 */
export type RunEffect = 'start' | 'step' | 'pause' | 'stop' | 'reset' | null;

/** An accepted event: the phase it left, the phase it entered and the page's effect. */
export interface RunTransition {
  from: RunPhase;
  to: RunPhase;
  effect: RunEffect;
}

/** Every phase, in the module comment's order. */
export const RUN_PHASES: readonly RunPhase[] = [
  'booting',
  'ready',
  'starting',
  'running',
  'stepping',
  'pausing',
  'paused',
  'stopping',
  'resetting',
  'done',
  'error',
];

/** Every event. */
export const RUN_PHASE_EVENTS: readonly RunPhaseEvent[] = [
  'click-start',
  'click-pause',
  'click-step',
  'click-stop',
  'click-reset',
  'boot',
  'reconfigure',
  'worker-ready',
  'worker-started',
  'worker-step',
  'worker-paused',
  'worker-done',
  'worker-error',
];

type Row = Partial<Record<RunPhaseEvent, [RunPhase, RunEffect]>>;

/** What every settled phase (ready, paused, done, error) accepts: a new worker or run, Start, Reset, an error. */
const SETTLED: Row = {
  'click-start': ['starting', 'start'],
  'click-reset': ['resetting', 'reset'],
  boot: ['booting', null],
  reconfigure: ['resetting', null],
  'worker-error': ['error', null],
};

/** A call in flight (running, stepping) or being stopped (pausing, stopping) takes the run's events. */
const TRAINING: Row = {
  'click-reset': ['resetting', 'reset'],
  'worker-done': ['done', null],
  'worker-error': ['error', null],
};

/**
 * The transition table: phase → event → [next phase, effect]. An event missing from a phase's row is illegal there
 * (ignored). Start and Step are legal only where no call is in flight; Pause only where one is, or is getting ready.
 */
const TABLE: Record<RunPhase, Row> = {
  booting: { boot: ['booting', null], 'worker-ready': ['ready', null], 'worker-error': ['error', null] },
  ready: { ...SETTLED, 'click-step': ['stepping', 'step'] },
  starting: {
    'click-pause': ['pausing', 'pause'],
    'click-reset': ['resetting', 'reset'],
    'worker-started': ['running', null],
    'worker-error': ['error', null],
  },
  running: {
    ...TRAINING,
    'click-pause': ['pausing', 'pause'],
    'click-stop': ['stopping', 'stop'],
    'worker-step': ['running', null],
    'worker-paused': ['paused', null],
  },
  stepping: {
    ...TRAINING,
    'click-pause': ['pausing', 'pause'],
    'click-stop': ['stopping', 'stop'],
    'worker-started': ['stepping', null],
    'worker-step': ['stepping', null],
    'worker-paused': ['paused', null],
  },
  pausing: {
    ...TRAINING,
    'click-stop': ['stopping', 'stop'],
    'worker-step': ['pausing', null],
    'worker-ready': ['ready', null],
    'worker-paused': ['paused', null],
  },
  paused: { ...SETTLED, 'click-step': ['stepping', 'step'], 'click-stop': ['stopping', 'stop'] },
  stopping: { ...TRAINING, 'worker-step': ['stopping', null] },
  resetting: {
    'click-start': ['starting', 'start'],
    'click-step': ['stepping', 'step'],
    boot: ['booting', null],
    reconfigure: ['resetting', null],
    'worker-ready': ['ready', null],
    'worker-paused': ['paused', null],
    'worker-done': ['done', null],
    'worker-error': ['error', null],
  },
  done: { ...SETTLED },
  error: { ...SETTLED, 'click-step': ['stepping', 'step'] },
};

/** The transition of `event` in `phase`, or null when the event is illegal there (it is ignored, with no effect). */
export function transition(phase: RunPhase, event: RunPhaseEvent): RunTransition | null {
  const next = TABLE[phase][event];
  return next ? { from: phase, to: next[0], effect: next[1] } : null;
}

/** True when `event` is legal in `phase` (a button for it is enabled). */
export function accepts(phase: RunPhase, event: RunPhaseEvent): boolean {
  return transition(phase, event) !== null;
}

/**
 * True in the phases where the worker trains, or is about to, or is stopping: the settings and the other verbs
 * that would change the run wait (booting too: no worker yet).
 */
export function isBusy(phase: RunPhase): boolean {
  return (
    phase === 'booting' ||
    phase === 'starting' ||
    phase === 'running' ||
    phase === 'stepping' ||
    phase === 'pausing' ||
    phase === 'stopping'
  );
}

/**
 * True while a run trains, is about to (starting, stepping) or is stopping (pausing, stopping): `isBusy` less booting.
 */
export function isTraining(phase: RunPhase): boolean {
  return isBusy(phase) && phase !== 'booting';
}

/** True in the phases that wait for nothing (ready, paused, done, error): the page has settled. */
export function isSettled(phase: RunPhase): boolean {
  return phase === 'ready' || phase === 'paused' || phase === 'done' || phase === 'error';
}

/** The event that puts a settled phase back (a refused reconfigure leaves the run as it was). */
export function settleEvent(phase: RunPhase): RunPhaseEvent {
  return phase === 'paused'
    ? 'worker-paused'
    : phase === 'done'
      ? 'worker-done'
      : phase === 'error'
        ? 'worker-error'
        : 'worker-ready';
}

/** The phase in words, as the progress line shows it. */
export const PHASE_TEXT: Record<RunPhase, string> = {
  booting: 'starting…',
  ready: 'ready',
  starting: 'starting training…',
  running: 'training…',
  stepping: 'training one step…',
  pausing: 'pausing at the next safe point…',
  paused: 'paused',
  stopping: 'stopping at the next safe point…',
  resetting: 'resetting…',
  done: 'done',
  error: 'stopped by an error',
};

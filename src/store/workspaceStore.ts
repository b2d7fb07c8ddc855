import * as fs from 'fs';
import * as path from 'path';
import { AppendEvents, growthEvents, type AppendListener, type Disposable } from './appendEvents';
import { TapeFileError, TapeLockedError } from './errors';
import { watchFile } from './fileWatch';
import { lockHolder, lockPathOf } from './lock';
import { TapeStore, type OpenOptions } from './tapeStore';

/** The workspace's tape inside the directory it is given (the extension's workspace storage). */
export const WORKSPACE_TAPE = 'workspace.tape.sqlite';

export type WorkspaceStoreState =
  | { mode: 'writable' }
  /** Another process (a second window on the same workspace) writes the tape; this one follows it. */
  | { mode: 'readOnly'; reason: string; holderPid: number };

/** Where a WorkspaceStore reports what goes wrong in the background (following, reopening). */
export type BackgroundErrorSink = (what: string, error: unknown) => void;

const toConsole: BackgroundErrorSink = (what, error) => console.error(`agent-tape: ${what}:`, error);

/** A read-only open right after another process took the lock may find no file yet. */
const CREATION_WAIT_MS = [20, 50, 100, 250, 500, 1000];

/**
 * One workspace's tape (SPEC 2.9): writable when this process gets the lock; otherwise read-only,
 * following the writer's appends, with the reason in `state`, until the lock is released (the
 * other window closed or crashed), when it reopens writable and says so through
 * `onDidChangeState`. `store` is the current TapeStore: it is replaced on that change, so hold on
 * to the WorkspaceStore, not to the store. `onDidAppend` hears appends of either kind of store.
 */
export class WorkspaceStore {
  private readonly appends = new AppendEvents();
  private readonly stateListeners = new Set<(s: WorkspaceStoreState) => void>();
  private forward: Disposable;
  private lockWatch: Disposable | undefined;
  private promoting: Promise<void> | undefined;
  private closed = false;

  private constructor(
    readonly file: string,
    private current: TapeStore,
    private currentState: WorkspaceStoreState,
    private readonly options: OpenOptions,
    private readonly onError: BackgroundErrorSink,
  ) {
    this.forward = current.onDidAppend((e) => this.appends.fire(e));
    if (currentState.mode === 'readOnly') this.watchLock();
  }

  /**
   * Opens (creating the directory and the tape when missing) the workspace tape in `dir`. Failures
   * in the background go to `onError` (a host's log; the console by default).
   */
  static async open(dir: string, options: Omit<OpenOptions, 'readOnly'> = {}, onError: BackgroundErrorSink = toConsole): Promise<WorkspaceStore> {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, WORKSPACE_TAPE);
    const { store, state } = await openEither(file, options, onError);
    return new WorkspaceStore(file, store, state, options, onError);
  }

  get store(): TapeStore {
    return this.current;
  }

  get state(): WorkspaceStoreState {
    return this.currentState;
  }

  onDidAppend(listener: AppendListener): Disposable {
    return this.appends.listen(listener);
  }

  onDidChangeState(listener: (state: WorkspaceStoreState) => void): Disposable {
    const wrapped = (s: WorkspaceStoreState): void => listener(s);
    this.stateListeners.add(wrapped);
    return { dispose: () => this.stateListeners.delete(wrapped) };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lockWatch?.dispose();
    await this.promoting?.catch(() => undefined);
    this.forward.dispose();
    await this.current.close();
  }

  private watchLock(): void {
    this.lockWatch = watchFile(lockPathOf(this.file), () => {
      if (this.closed || this.promoting) return;
      let holder: number | null;
      try {
        holder = lockHolder(this.file);
      } catch (e) {
        // A lock that is not a lock (a FIFO, a device): no writer can take it, nor can this window.
        return this.onError(`cannot tell whether ${this.file} is still open for writing`, e);
      }
      if (holder === null) this.promoting = this.promote().finally(() => (this.promoting = undefined));
    });
  }

  /** The writer let go: take the tape over, or go on following whoever was quicker. */
  private async promote(): Promise<void> {
    let next: { store: TapeStore; state: WorkspaceStoreState };
    try {
      next = await openEither(this.file, this.options, this.onError);
    } catch (e) {
      this.onError(`could not reopen ${this.file} after its writer closed it`, e);
      return;
    }
    if (this.closed) return void (await next.store.close());
    const previous = this.current;
    const before = previous.sessions();
    this.forward.dispose();
    this.current = next.store;
    this.currentState = next.state;
    this.forward = next.store.onDidAppend((e) => this.appends.fire(e));
    await previous.close();
    if (next.state.mode === 'writable') {
      this.lockWatch?.dispose();
      this.lockWatch = undefined;
    }
    // What the writer appended after this process last looked.
    for (const e of growthEvents(before, next.store.sessions())) this.appends.fire(e);
    for (const l of this.stateListeners) l(next.state);
  }
}

async function openEither(file: string, options: OpenOptions, onError: BackgroundErrorSink): Promise<{ store: TapeStore; state: WorkspaceStoreState }> {
  try {
    return { store: await TapeStore.open(file, { ...options, readOnly: false }), state: { mode: 'writable' } };
  } catch (e) {
    if (!(e instanceof TapeLockedError)) throw e;
    const store = await openReadOnly(file);
    store.follow((e) => onError(`following ${file} failed`, e));
    const reason = `${file} is open for writing in another window or process (pid ${e.holderPid}); this one shows it read-only and follows its changes until it is closed`;
    return { store, state: { mode: 'readOnly', reason, holderPid: e.holderPid } };
  }
}

async function openReadOnly(file: string): Promise<TapeStore> {
  for (const wait of CREATION_WAIT_MS) {
    try {
      return await TapeStore.open(file, { readOnly: true });
    } catch (e) {
      if (!(e instanceof TapeFileError && /does not exist|is empty/.test(e.message))) throw e;
      await new Promise((r) => setTimeout(r, wait));
    }
  }
  return TapeStore.open(file, { readOnly: true });
}

import type { HostChannel } from './channel';

/**
 * What the page offers on the shown session only where this window may write the tape (forking,
 * restoring files, amending a compaction): a tape file's editor is read-only, and so is a window
 * that does not hold the workspace tape. Listeners hear when that changes.
 */
export abstract class WritableAction {
  protected sessionId: string | null = null;
  protected writable = false;
  private readonly listeners: (() => void)[] = [];

  constructor(protected readonly channel: HostChannel) {}

  get enabled(): boolean {
    return this.sessionId !== null && this.writable;
  }

  /** Called when what is offered changes (the session, whether the tape is writable here, or what a subclass adds). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  update(sessionId: string | null, readOnly: boolean): void {
    if (sessionId === this.sessionId && !readOnly === this.writable) return;
    const switched = sessionId !== this.sessionId;
    this.sessionId = sessionId;
    this.writable = !readOnly;
    if (switched) this.sessionSwitched();
    this.changed();
  }

  /** What a subclass knows of the previous session is dropped here. */
  protected sessionSwitched(): void {}

  protected changed(): void {
    for (const l of this.listeners) l();
  }
}

import { fileSize } from '../../store/fsutil';
import { HEADER_BYTES, journalPathOf, scanJournal } from '../../store/journal';
import { formatOf } from '../../store/tapeFile';
import { parseArgs } from '../args';
import { json, type Io } from '../output';
import { withTape } from './withTape';

export function infoCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { switches: ['json'], positional: ['tape'] });
  const [file] = p.positional;
  return withTape(file, ({ store }) => {
    const format = formatOf(file);
    const info = {
      file,
      format,
      bytes: fileSize(file),
      // The journal file is preallocated in chunks of zeros: its size says little about its records.
      journalBytes: format === 'sqlite' ? Math.max(0, scanJournal(journalPathOf(file), store.tapeId).validEnd - HEADER_BYTES) : 0,
      sessions: store.sessions().map((s) => ({
        ...s,
        anchors: store.rawEntries(s.sessionId, { kind: 'anchor' }).map((a) => ({ entryId: a.entryId, name: a.name })),
      })),
    };
    if (p.flags.has('json')) return (json(io, info), 0);
    io.out(
      `${file} (${format}, ${info.bytes} bytes${info.journalBytes ? ` + ${info.journalBytes} bytes of journal records` : ''}), ${info.sessions.length} sessions\n`,
    );
    for (const s of info.sessions) {
      io.out(`  ${s.sessionId}: head ${s.headEntryId}, ${s.entryCount} entries, ${s.anchorCount} anchors\n`);
      for (const a of s.anchors) io.out(`    #${a.entryId} ${a.name}\n`);
    }
    return 0;
  });
}

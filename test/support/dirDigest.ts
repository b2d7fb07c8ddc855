import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';

/**
 * Every file under `dir`, path → sha256 of its bytes (a symlink as `link <target>`): a directory
 * compared byte for byte. `skip` leaves out a path (and what is under it), say the folder's `.git`.
 */
export function dirDigest(dir: string, skip: (rel: string) => boolean = () => false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
      const r = rel === '' ? name : `${rel}/${name}`;
      if (skip(r)) continue;
      const abs = path.join(dir, r);
      const st = fs.lstatSync(abs);
      if (st.isSymbolicLink()) out[r] = `link ${fs.readlinkSync(abs)}`;
      else if (st.isDirectory()) walk(r);
      else out[r] = createHash('sha256').update(fs.readFileSync(abs)).digest('hex');
    }
  };
  walk('');
  return out;
}

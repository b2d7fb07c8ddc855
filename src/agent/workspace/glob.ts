import picomatch from 'picomatch';

/**
 * A matcher for workspace-relative `/`-separated paths. A pattern without a slash matches the file
 * name at any depth (`*.ts` finds `src/a.ts`), as models tend to expect; dot files match too, so
 * `.github/**` works.
 */
export function globMatcher(pattern: string): (relPath: string) => boolean {
  const normalised = pattern.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  const matches = picomatch(normalised, { dot: true });
  // picomatch's own basename option also rewrites patterns that do have slashes, so it is done here.
  if (normalised.includes('/')) return matches;
  return (relPath) => matches(relPath.slice(relPath.lastIndexOf('/') + 1));
}

import { spawn, type ChildProcess } from 'child_process';

/**
 * An OTLP/HTTP collector for the benches, in another process so its work is not on the clock of
 * the process measured: it reads each request whole and answers 200, and counts the bytes.
 */
export function startCollector(): Promise<{ url: string; child: ChildProcess; bytes: () => Promise<number> }> {
  const code = [
    "let n=0;const s=require('http').createServer((q,r)=>{q.on('data',(d)=>{n+=d.length});q.on('end',()=>{r.writeHead(200);r.end();});});",
    "s.listen(0,'127.0.0.1',()=>console.log(s.address().port));process.on('message',()=>process.send(n));",
  ].join('');
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const bytes = (): Promise<number> =>
    new Promise((resolve) => {
      child.once('message', (n) => resolve(Number(n)));
      child.send('bytes?');
    });
  return new Promise((resolve, reject) => {
    child.stdout?.once('data', (d: Buffer) => resolve({ url: `http://127.0.0.1:${String(d).trim()}/v1/traces`, child, bytes }));
    child.once('error', reject);
  });
}

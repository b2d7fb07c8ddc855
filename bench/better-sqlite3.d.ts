// The few better-sqlite3 calls the append benchmark's baseline makes (the package ships no types).
declare module 'better-sqlite3' {
  interface Statement {
    run(...params: unknown[]): unknown;
  }
  class Database {
    constructor(file: string);
    pragma(source: string): unknown;
    exec(source: string): this;
    prepare(source: string): Statement;
    transaction<T extends (...args: never[]) => unknown>(fn: T): T;
    close(): void;
  }
  export default Database;
}

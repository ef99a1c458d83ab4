import { closeSync, openSync, readFileSync, unlinkSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";

export interface ProcessInfo {
  ppid: number;
  pgrp: number;
  /** Start time in clock ticks after boot: tells a process from a later one that reuses its pid. */
  startTicks: number;
  comm: string;
  cmdline: string;
}

/** What /proc says about a process (Linux); undefined when it is gone or /proc is not there. */
export function processInfo(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const open = stat.indexOf("(");
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(open + 1, close);
    // Fields after the command: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime
    const rest = stat.slice(close + 2).split(" ");
    let cmdline = comm;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ") || comm;
    } catch {
      // kept as the command name
    }
    return { ppid: Number(rest[1]), pgrp: Number(rest[2]), startTicks: Number(rest[19]), comm, cmdline };
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists (EPERM: it does, under another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

interface LockRecord {
  pid: number;
  startTicks?: number;
  postgresPid?: number;
}

export interface DataDirLock {
  /** The server process that held the directory before, now gone (a crash), if it left a record. */
  previousOwner?: number;
  /** Adds facts to the record (the PostgreSQL pid), for the next start and for people. */
  note(extra: Partial<LockRecord>): void;
  release(): void;
}

export class DataDirInUseError extends Error {}

/**
 * `DATA_DIR/server.pid`: which server process uses an embedded data directory. A record naming a
 * live process (the same one: its start time matches, so not a later process reusing the pid) is
 * a server running now, and a second one would corrupt or stop its database: refused, naming it.
 * A record of a process that is gone is a crash: taken over, and its pid tells the caller whose
 * PostgreSQL may still be running.
 */
export function acquireDataDirLock(dataDir: string): DataDirLock {
  const path = join(dataDir, "server.pid");
  let previousOwner: number | undefined;
  let record: LockRecord = { pid: process.pid, startTicks: processInfo(process.pid)?.startTicks };
  const write = () => writeFileSync(path, JSON.stringify(record) + "\n");
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, "wx");
      try {
        writeSync(fd, JSON.stringify(record) + "\n");
      } finally {
        closeSync(fd);
      }
      let released = false;
      return {
        previousOwner,
        note(extra) {
          record = { ...record, ...extra };
          write();
        },
        release() {
          if (released) return;
          released = true;
          try {
            const current = JSON.parse(readFileSync(path, "utf8")) as LockRecord;
            if (current.pid === process.pid) unlinkSync(path);
          } catch {
            // already gone
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    let existing: LockRecord | undefined;
    try {
      existing = JSON.parse(readFileSync(path, "utf8")) as LockRecord;
    } catch {
      existing = undefined; // unreadable or half-written: no owner to protect
    }
    if (existing && existing.pid !== process.pid && alive(existing.pid)) {
      const info = processInfo(existing.pid);
      const sameProcess = !info || existing.startTicks === undefined || info.startTicks === existing.startTicks;
      if (sameProcess) {
        throw new DataDirInUseError(
          `DATA_DIR ${dataDir} is in use by server process ${existing.pid}${info ? ` (${info.cmdline})` : ""}; stop that server first, or give this one another DATA_DIR`,
        );
      }
    }
    if (existing && existing.pid !== process.pid) previousOwner = existing.pid;
    try {
      unlinkSync(path);
    } catch {
      // another starter removed it first; the next exclusive create decides
    }
  }
  throw new DataDirInUseError(`DATA_DIR ${dataDir} is being taken by another server process starting at the same time`);
}

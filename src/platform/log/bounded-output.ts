import { Worker } from 'node:worker_threads';

/** What the process's log output has done, for its metrics. */
export interface LogOutputStats {
  /** Lines dropped because the reader of the output was too slow (since the process started). */
  readonly dropped: number;
  /** Characters waiting to be written now (never above the bound). */
  readonly pending: number;
}

/**
 * The writer thread: blocking writes to the descriptor, in order, off the main thread. A full
 * pipe only holds this thread up; a descriptor gone for good (a reader that left) ends writing
 * quietly. Each batch is acknowledged, written or not, so the main thread frees its room.
 */
const WRITER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const { fd, done } = workerData;
const nap = new Int32Array(new SharedArrayBuffer(4));
let closed = false;
parentPort.on('message', ({ text, size }) => {
  let rest = Buffer.from(text);
  while (!closed && rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      if (error && (error.code === 'EAGAIN' || error.code === 'EBUSY')) Atomics.wait(nap, 0, 0, 5);
      else closed = true;
    }
  }
  Atomics.add(done, 0, 1);
  Atomics.notify(done, 0);
  parentPort.postMessage(size);
});
`;

/** Longest an exiting process waits for its last lines to be written. */
const EXIT_FLUSH_MS = 1_000;

/**
 * How long lines gather before they go to the writer, and how many characters send them at
 * once. A message to the writer and its answer cost about 0.1 ms of CPU whatever they carry:
 * posted every turn of the event loop, a web taking requests one by one paid one per request;
 * every 20 ms, it was still 1.8 % of a busy web's time at four calls in flight. A line reaches
 * the output at most this late; an exit writes what is waiting (`flushSync`).
 */
const GATHER_MS = 100;
const GATHER_CHARS = 64 * 1024;

/**
 * Log output that can never hold up the process: lines are queued in memory up to a bound and
 * written by a thread of their own. While the reader of the output is stalled (a paused pager,
 * a slow log driver, a supervisor that reads late), lines beyond the bound are dropped and
 * counted; once the reader has caught up, one line says how many were dropped. The main
 * thread only ever appends to a list and, every few milliseconds, posts what gathered.
 */
export class BoundedOutput {
  private queue: string[] = [];
  private queued = 0;
  private inFlight = 0;
  private droppedTotal = 0;
  private unreported = 0;
  private timer: NodeJS.Timeout | undefined;
  private posted = 0;
  private readonly done = new Int32Array(new SharedArrayBuffer(4));
  private readonly writer: Worker;

  /**
   * @param fd the descriptor written (1: stdout).
   * @param maxChars most characters queued or being written at once; beyond it lines are dropped.
   * @param fields added to the line that reports dropped lines (say, the process's name).
   */
  constructor(
    fd: number,
    private readonly maxChars: number,
    private readonly fields: Readonly<Record<string, string>> = {},
    private readonly now: () => number = Date.now,
  ) {
    // No loader hooks in the writer: it is plain JavaScript and should start at once.
    this.writer = new Worker(WRITER_SOURCE, { eval: true, execArgv: [], workerData: { fd, done: this.done } });
    this.writer.on('message', (size: number) => this.written(size));
    // The writer never keeps the process alive; an exit flushes what it can (see flushSync).
    this.writer.unref();
  }

  /** Queues one line (pino's destination interface); drops it when the queue is full. */
  write(line: string): void {
    if (this.queued + this.inFlight + line.length > this.maxChars) {
      this.droppedTotal += 1;
      this.unreported += 1;
      return;
    }
    this.enqueue(line);
  }

  /** Lines dropped so far and characters waiting. */
  stats(): LogOutputStats {
    return { dropped: this.droppedTotal, pending: this.queued + this.inFlight };
  }

  /** Hands what is queued to the writer and waits (bounded) until it is written: for exits. */
  flushSync(timeoutMs = EXIT_FLUSH_MS): void {
    this.post();
    const deadline = this.now() + timeoutMs;
    for (;;) {
      const acked = Atomics.load(this.done, 0);
      const left = deadline - this.now();
      if (acked >= this.posted || left <= 0) return;
      Atomics.wait(this.done, 0, acked, left);
    }
  }

  private enqueue(line: string): void {
    this.queue.push(line);
    this.queued += line.length;
    if (this.queued >= GATHER_CHARS) this.post();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.post(), GATHER_MS);
      // Never keeps the process alive: an exit posts what is left (flushSync).
      this.timer.unref();
    }
  }

  private post(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queue.length === 0) return;
    const text = this.queue.join('');
    const size = this.queued;
    this.queue = [];
    this.queued = 0;
    this.inFlight += size;
    this.posted += 1;
    this.writer.postMessage({ text, size });
  }

  private written(size: number): void {
    this.inFlight -= size;
    if (this.inFlight > 0 || this.queued > 0 || this.unreported === 0) return;
    // The reader caught up: say what it missed, once (past the bound: the queue is empty).
    const dropped = this.unreported;
    this.unreported = 0;
    const line = { level: 40, time: this.now(), ...this.fields, dropped_lines: dropped, msg: 'log lines dropped while the output was not read' };
    this.enqueue(`${JSON.stringify(line)}\n`);
  }
}

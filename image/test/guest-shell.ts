import { createConnection, type Socket } from 'node:net';

/**
 * The root shell on the guest's virtio console (test overlay only), driven line by line.
 * Each command is framed by markers the echo cannot fake: the typed line holds `$?` where
 * the real end marker holds a number.
 */
export interface CommandResult {
  code: number;
  out: string;
}

// Terminal control sequences (colours, bracketed paste) the login shell may still send.
const ESCAPES = /\u001b\[[0-9;?]*[A-Za-z]/g;

export class GuestShell {
  private buffer = '';
  private counter = 0;
  private constructor(private readonly socket: Socket) {
    socket.on('data', (d: Buffer) => (this.buffer += d.toString('utf8')));
  }

  static async connect(path: string, timeoutMs: number): Promise<GuestShell> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const socket = await new Promise<Socket>((resolve, reject) => {
          const s = createConnection(path, () => resolve(s));
          s.once('error', reject);
        });
        return new GuestShell(socket);
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** Waits until the autologin shell answers (the getty starts late in the boot). */
  async ready(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      // No echo, no prompt, no bracketed-paste escapes: the output is only what commands print.
      const r = await this.run("stty -echo; PS1=''; PROMPT_COMMAND=''; bind 'set enable-bracketed-paste off' 2>/dev/null; echo ready", 3000).catch(
        () => undefined,
      );
      if (r?.code === 0) return;
    }
    throw new Error(`guest shell did not answer in ${timeoutMs} ms; last output: ${this.buffer.slice(-500)}`);
  }

  async run(command: string, timeoutMs = 30_000): Promise<CommandResult> {
    const n = ++this.counter;
    const begin = `__BEGIN_${n}__`;
    const end = new RegExp(`__END_${n}_(\\d+)__`);
    // One line: a second one would put the shell's prompt inside the output.
    this.socket.write(`echo ${begin}; ${command}; echo __END_${n}_$?__\n`);
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const text = this.buffer.replace(/\r/g, '').replace(ESCAPES, '');
      const match = end.exec(text);
      const from = text.lastIndexOf(`${begin}\n`);
      if (match && from >= 0 && match.index > from) {
        this.buffer = text.slice(match.index + match[0].length);
        return { code: Number(match[1]), out: text.slice(from + begin.length + 1, match.index).trim() };
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`guest command timed out: ${command}`);
  }

  /** run(), failing unless the command exits 0. */
  async check(command: string, timeoutMs?: number): Promise<string> {
    const r = await this.run(command, timeoutMs);
    if (r.code !== 0) throw new Error(`guest command failed (${r.code}): ${command}\n${r.out}`);
    return r.out;
  }

  close(): void {
    this.socket.destroy();
  }
}

import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { headlessFirmwareArgs, MACHINE_ARGS, OVMF_VARS, qemuAccel, type Accelerator } from './qemu-accel.ts';

/**
 * One qemu-system-x86_64 guest for the image tests: UEFI (OVMF), KVM when the host offers it
 * and software emulation (TCG) otherwise (qemu-accel.ts chooses, once per process, and says
 * which; ALPR_QEMU_ACCEL=kvm|tcg forces one), one vCPU, the disk as a raw file (writes
 * persist: the test reboots and updates it), user networking with `restrict=on` (the guest
 * reaches nothing but what is forwarded), the setup page forwarded to the host's loopback,
 * and guest addresses handed to host loopback services through `guestfwd` (one `socat` per
 * connection). The serial port (kernel and console messages) goes to a file; the virtio
 * console hvc0 to a unix socket, where the test overlay puts a root shell.
 */
export interface VmOptions {
  disk: string;
  workDir: string;
  /** Host loopback port forwarded to the guest's 8080. */
  setupPort: number;
  /** Guest address:port -> host loopback port. */
  guestForwards: { guest: string; guestPort: number; hostPort: number }[];
  /** DMI system serial the firmware reports: the hardware identity. */
  serial: string;
  memoryMiB?: number;
  /** More host loopback ports forwarded into the guest (the hub server's TLS port). */
  hostForwards?: { hostPort: number; guestPort: number }[];
  /**
   * qemu's cache mode for the disk. Default `unsafe` (fast; the host keeps whatever the guest
   * wrote). The power-cut test uses `writethrough`: a write is on the host's disk before the
   * guest hears it is done, and a killed qemu takes the guest's unwritten page cache with it,
   * as a power cut does.
   */
  cache?: 'unsafe' | 'writethrough' | 'directsync';
}

export interface Vm {
  shellSocket: string;
  /** What the guest runs under: tests put it beside their timings. */
  accel: Accelerator;
  serialLog(): Promise<string>;
  /** Resolves with the exit code when qemu ends (a guest poweroff ends it). */
  exited: Promise<number | null>;
  kill(): void;
}

export async function startVm(options: VmOptions): Promise<Vm> {
  const vars = join(options.workDir, 'OVMF_VARS.fd');
  await copyFile(OVMF_VARS, vars);
  const shellSocket = join(options.workDir, 'hvc0.sock');
  const serialFile = join(options.workDir, 'serial.log');
  const inward = (options.hostForwards ?? []).map((f) => `,hostfwd=tcp:127.0.0.1:${f.hostPort}-:${f.guestPort}`).join('');
  const forwards = options.guestForwards.map((f) => `,guestfwd=tcp:${f.guest}:${f.guestPort}-cmd:socat - TCP:127.0.0.1:${f.hostPort}`).join('');
  const accel = await qemuAccel();
  const args = [
    ...accel.args,
    ...MACHINE_ARGS,
    '-m',
    String(options.memoryMiB ?? 1024),
    ...headlessFirmwareArgs(vars),
    '-drive',
    `file=${options.disk},format=raw,if=virtio,cache=${options.cache ?? 'unsafe'}`,
    '-smbios',
    `type=1,serial=${options.serial}`,
    '-netdev',
    `user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:${options.setupPort}-:8080${inward}${forwards}`,
    '-device',
    'virtio-net-pci,netdev=n0',
    '-serial',
    `file:${serialFile}`,
    '-device',
    'virtio-serial-pci',
    '-chardev',
    `socket,id=shell,path=${shellSocket},server=on,wait=off`,
    '-device',
    'virtconsole,chardev=shell',
  ];
  const child: ChildProcess = spawn('qemu-system-x86_64', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // A qemu that fails on its arguments exits at once: say why instead of timing out later.
  let timer: NodeJS.Timeout | undefined;
  const early = await Promise.race([exited.then(() => true), new Promise<false>((r) => (timer = setTimeout(() => r(false), 1500)))]);
  clearTimeout(timer);
  if (early) throw new Error(`qemu exited at start: ${output}`);
  return {
    shellSocket,
    accel: accel.accel,
    serialLog: () => readFile(serialFile, 'utf8').catch(() => ''),
    exited,
    kill: () => void child.kill('SIGKILL'),
  };
}

import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Which accelerator the test guests run under, chosen once per test process: KVM when
 * /dev/kvm is readable and writable and a short qemu run with the guests' own CPU, machine and
 * firmware gets through OVMF to its boot manager; TCG (software emulation) otherwise.
 * ALPR_QEMU_ACCEL=kvm|tcg forces one; kvm forced but unusable is an error, not a quiet TCG.
 * The choice and its reason go to stderr, so a test's log (and CI's) says which it was.
 */
export type Accelerator = 'kvm' | 'tcg';

export interface AccelChoice {
  accel: Accelerator;
  /** `-accel` and `-cpu` for qemu-system-x86_64. */
  args: string[];
  why: string;
}

/**
 * `-cpu max` and `-cpu host` under KVM abort on the CI machine ("failed to set MSR 0x10a":
 * its nested hypervisor refuses IA32_ARCH_CAPABILITIES); without that one MSR the rest of max
 * is accepted. The probe below runs these exact flags, so a host that refuses more falls back.
 */
const KVM_ARGS = ['-accel', 'kvm', '-cpu', 'max,-arch-capabilities'];
const TCG_ARGS = ['-accel', 'tcg', '-cpu', 'max'];
/** The guests' machine and firmware (qemu-vm.ts), here so the probe tries exactly them. */
export const MACHINE_ARGS = ['-machine', 'q35', '-smp', '1'];
export const OVMF_CODE = '/usr/share/OVMF/OVMF_CODE_4M.fd';
export const OVMF_VARS = '/usr/share/OVMF/OVMF_VARS_4M.fd';

/** No screen, no monitor, no default devices, and the UEFI firmware with its own copy of the variables. */
export function headlessFirmwareArgs(varsCopy: string): string[] {
  return [
    '-display',
    'none',
    '-monitor',
    'none',
    '-nodefaults',
    '-drive',
    `if=pflash,format=raw,readonly=on,file=${OVMF_CODE}`,
    '-drive',
    `if=pflash,format=raw,file=${varsCopy}`,
  ];
}
const KVM_DEVICE = '/dev/kvm';
/**
 * The probe's budget. Under TCG at load 11 OVMF took 12-20 s to its boot manager; a usable
 * KVM gets there in a second or two, and a KVM that cannot run OVMF says so at once.
 */
const PROBE_TIMEOUT_MS = 30_000;
/** OVMF's boot manager announcing a boot option on the serial port: the firmware ran through. */
const FIRMWARE_RAN = /BdsDxe: (loading|starting)/;

export interface AccelFacts {
  /** ALPR_QEMU_ACCEL as given. */
  forced: string | undefined;
  /** Why /dev/kvm cannot be used, or undefined when it is readable and writable. */
  deviceProblem: () => Promise<string | undefined>;
  /** Why the KVM probe failed, or undefined when it ran. */
  probeProblem: () => Promise<string | undefined>;
}

/** The decision, apart from the device and the probe it asks about. */
export async function chooseAccel(facts: AccelFacts): Promise<AccelChoice> {
  const forced = facts.forced?.trim() || undefined;
  if (forced !== undefined && forced !== 'kvm' && forced !== 'tcg') throw new Error(`ALPR_QEMU_ACCEL=${forced}: expected kvm or tcg`);
  if (forced === 'tcg') return { accel: 'tcg', args: TCG_ARGS, why: 'forced by ALPR_QEMU_ACCEL=tcg' };
  const unusable = (await facts.deviceProblem()) ?? (await facts.probeProblem());
  if (unusable === undefined) {
    return { accel: 'kvm', args: KVM_ARGS, why: `${forced ? 'forced by ALPR_QEMU_ACCEL=kvm; ' : ''}${KVM_DEVICE} is read-write and the probe ran a vCPU` };
  }
  if (forced === 'kvm') throw new Error(`ALPR_QEMU_ACCEL=kvm, but KVM is not usable here: ${unusable}`);
  return { accel: 'tcg', args: TCG_ARGS, why: `KVM not usable (${unusable}); set ALPR_QEMU_ACCEL=kvm to make that an error` };
}

async function kvmDeviceProblem(): Promise<string | undefined> {
  try {
    await access(KVM_DEVICE, constants.R_OK | constants.W_OK);
    return undefined;
  } catch (error) {
    return `${KVM_DEVICE}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * qemu with the guests' accelerator, CPU, machine and firmware, no disk, serial on stdout,
 * until OVMF's boot manager says it is loading a boot option. /dev/kvm alone proves little:
 * on the CI machine it is kvm-pvm (software nested virtualisation, no VMX/SVM in the guest),
 * which runs SeaBIOS and paged code but stops OVMF in its first instructions ("KVM internal
 * error ... emulation failure" at the x87 FNINIT it runs before paging is on), and `-cpu max`
 * aborts there ("failed to set MSR 0x10a").
 */
export async function kvmProbeProblem(accelArgs = KVM_ARGS): Promise<string | undefined> {
  const work = await mkdtemp(join(tmpdir(), 'alpr-qemu-probe-'));
  const vars = join(work, 'OVMF_VARS.fd');
  await copyFile(OVMF_VARS, vars);
  const args = [...accelArgs, ...MACHINE_ARGS, '-m', '256', ...headlessFirmwareArgs(vars), '-serial', 'stdio'];
  const began = Date.now();
  try {
    return await new Promise<string | undefined>((resolve) => {
      const child = spawn('qemu-system-x86_64', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let serial = '';
      let errors = '';
      // qemu's complaint (the error lines and where the vCPU stopped), not its register dump.
      const said = (): string =>
        [...errors.split('\n').filter((l) => /error|failure|failed/i.test(l)), /EIP=\w+/.exec(errors)?.[0] ?? '', serial.slice(-200)]
          .map((l) => l.replace(/\u001b\[[0-9;?=]*[A-Za-z]/g, '').trim())
          .filter((l) => l !== '')
          .join('; ');
      let ended = false;
      const end = (problem: string | undefined): void => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.kill('SIGKILL');
        resolve(problem);
      };
      const timer = setTimeout(() => end(`OVMF did not reach its boot manager in ${PROBE_TIMEOUT_MS / 1000} s: ${said()}`), PROBE_TIMEOUT_MS);
      child.stdout.on('data', (d: Buffer) => {
        serial += d.toString();
        if (FIRMWARE_RAN.test(serial)) end(undefined);
      });
      child.stderr.on('data', (d: Buffer) => {
        errors += d.toString();
        // qemu pauses the guest on a KVM internal error and waits: no use waiting with it.
        if (/KVM internal error/.test(errors)) setTimeout(() => end(`OVMF stopped under KVM after ${Date.now() - began} ms: ${said()}`), 200);
      });
      child.once('error', (error) => end(`qemu-system-x86_64 did not start: ${error.message}`));
      child.once('exit', (code, signal) => end(`the probe (${args.join(' ')}) ended with ${signal ?? `exit ${code}`}: ${said()}`));
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

let chosen: Promise<AccelChoice> | undefined;

/** The accelerator for this process's guests: probed on the first call, logged once. */
export function qemuAccel(): Promise<AccelChoice> {
  chosen ??= chooseAccel({ forced: process.env['ALPR_QEMU_ACCEL'], deviceProblem: kvmDeviceProblem, probeProblem: () => kvmProbeProblem() }).then((choice) => {
    process.stderr.write(`qemu accelerator: ${choice.accel} (${choice.why})\n`);
    return choice;
  });
  return chosen;
}

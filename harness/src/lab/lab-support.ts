/**
 * Whether the network lab can be built here: Linux, root, network namespaces, and the Debian tools
 * it runs (iproute2, iptables, iputils-ping, python3). Where it cannot, the lab's tests print a
 * loud SKIPPED saying why and how to get it, and pass, as the suite's other OS-dependent tests do.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The lab's tools by Debian package (scripts/ensure-os-packages.mjs installs them). */
const TOOLS = {
  ip: 'iproute2',
  tc: 'iproute2',
  iptables: 'iptables',
  'iptables-restore': 'iptables',
  'ip6tables-restore': 'iptables',
  ping: 'iputils-ping',
  python3: 'python3',
} as const;

export type LabTool = keyof typeof TOOLS;

export type LabSupport =
  { ok: true; tools: Record<LabTool, string> } | { ok: false; reason: string };

/** A tool's absolute path: PATH first, then the sbin folders a non-login PATH may lack. */
export function findTool(name: string): string | undefined {
  const folders = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/sbin', '/usr/bin'];
  // Debian's python3 before a version manager's shim: the delayer needs only the standard library.
  if (name === 'python3' && existsSync('/usr/bin/python3')) return '/usr/bin/python3';
  return folders.map((folder) => join(folder, name)).find((path) => existsSync(path));
}

/** Checks afresh each time (tens of milliseconds: it adds and deletes one namespace). */
export function labSupport(): LabSupport {
  if (process.platform !== 'linux') return { ok: false, reason: 'network namespaces need Linux' };
  if (process.getuid?.() !== 0) {
    return { ok: false, reason: 'the lab needs root (network namespaces, iptables, tc)' };
  }
  const tools: Partial<Record<LabTool, string>> = {};
  const missing = new Set<string>();
  for (const [tool, debianPackage] of Object.entries(TOOLS) as [LabTool, string][]) {
    const path = findTool(tool);
    if (path === undefined) missing.add(debianPackage);
    else tools[tool] = path;
  }
  if (missing.size > 0) {
    const names = [...missing].join(' ');
    return { ok: false, reason: `missing tools: apt-get install ${names}` };
  }
  // Creating and deleting one namespace proves the kernel and our rights allow it.
  const name = `tc-${process.pid}-${randomBytes(3).toString('hex')}-probe`;
  const add = spawnSync(tools.ip!, ['netns', 'add', name], { encoding: 'utf8', timeout: 10_000 });
  spawnSync(tools.ip!, ['netns', 'del', name], { timeout: 10_000 });
  if (add.status !== 0) {
    return { ok: false, reason: `cannot create a network namespace: ${add.stderr.trim()}` };
  }
  return { ok: true, tools: tools as Record<LabTool, string> };
}

/** The banner a lab test prints when it cannot run. */
export function labSkippedBanner(what: string, reason: string): string {
  const line = '#'.repeat(78);
  return (
    `\n${line}\n#  SKIPPED: ${what}.\n#  Why: ${reason}.\n` +
    `#  The lab needs root on Linux with network namespaces, and Debian's iproute2, iptables,\n` +
    `#  iputils-ping and python3 (npm test's first step installs them when it runs as root).\n${line}\n`
  );
}

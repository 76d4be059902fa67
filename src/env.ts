// Reading configuration from the environment. Every parser collects problems instead of
// throwing at the first one, so a misconfigured deployment fails at startup with the
// whole list, not one error per restart.
export type Env = Record<string, string | undefined>;

/** The trimmed value, or undefined when unset or blank. */
export function envString(env: Env, key: string): string | undefined {
  const v = env[key]?.trim();
  return v === undefined || v === '' ? undefined : v;
}

/** A whole number in [min, max]; the default when unset; a problem (and the default) otherwise. */
export function envInt(env: Env, key: string, def: number, min: number, max: number, problems: string[]): number {
  const raw = envString(env, key);
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    problems.push(`${key} must be an integer between ${min} and ${max}, got "${raw}"`);
    return def;
  }
  return n;
}

/** true/1/yes/on or false/0/no/off, case-insensitive. */
export function envBool(env: Env, key: string, def: boolean, problems: string[]): boolean {
  const raw = envString(env, key);
  if (raw === undefined) return def;
  const v = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  problems.push(`${key} must be true or false, got "${raw}"`);
  return def;
}

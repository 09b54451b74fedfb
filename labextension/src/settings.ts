/**
 * The extension's user settings (schema/plugin.json), with defaults used
 * before the setting registry answers.
 */

import { Severity, SEVERITIES } from './protocol';

export interface IMsnbSettings {
  /** Show msnb's findings in the editor and the diagnostics panel. */
  diagnostics: boolean;
  /** Rule codes never shown (e.g. "MSN301"). */
  ignoredRules: string[];
  /** Milliseconds after the last keystroke before a cell is analyzed. */
  debounceMs: number;
  /** Severities shown. */
  severities: Severity[];
}

export const DEFAULT_SETTINGS: IMsnbSettings = {
  diagnostics: true,
  ignoredRules: [],
  debounceMs: 500,
  severities: [...SEVERITIES]
};

/** Settings from the registry's composite value, invalid entries replaced by defaults. */
export function readSettings(raw: Record<string, unknown> | null | undefined): IMsnbSettings {
  const value = raw ?? {};
  const debounce = Number(value.debounceMs);
  const rules = Array.isArray(value.ignoredRules) ? value.ignoredRules.filter(r => typeof r === 'string') : [];
  const severities = Array.isArray(value.severities)
    ? (value.severities.filter(s => (SEVERITIES as readonly unknown[]).includes(s)) as Severity[])
    : DEFAULT_SETTINGS.severities;
  return {
    diagnostics: typeof value.diagnostics === 'boolean' ? value.diagnostics : DEFAULT_SETTINGS.diagnostics,
    ignoredRules: rules as string[],
    debounceMs: Number.isFinite(debounce) && debounce >= 0 ? Math.min(debounce, 10000) : DEFAULT_SETTINGS.debounceMs,
    severities
  };
}

import { existsSync } from 'node:fs';
import { findChromium } from '../fetch/browser/chromium-launch.ts';

/**
 * `{ skip }` for browser tests: the reason Chromium tests cannot run here, or false. Throws instead when the
 * environment requires services (PERISCOPE_REQUIRE_SERVICES=1, as CI sets after installing Debian's chromium), so a
 * missing browser fails the run rather than skipping it.
 */
export function chromiumTestGate(): { skip: string | false } {
  const path = findChromium(null, process.env);
  const reason =
    path === undefined
      ? 'no Chromium found (Debian: apt-get install chromium; or set PERISCOPE_CHROMIUM_PATH)'
      : existsSync(path)
        ? false
        : `no Chromium at ${path} (PERISCOPE_CHROMIUM_PATH names a file that does not exist)`;
  if (reason !== false && process.env.PERISCOPE_REQUIRE_SERVICES === '1')
    throw new Error(`PERISCOPE_REQUIRE_SERVICES=1 but ${reason}`);
  return { skip: reason };
}

import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { PeriscopeError } from '../../errors.ts';

/**
 * Where Debian, Ubuntu, Fedora, Arch and macOS put Chromium or Chrome. Debian's `/usr/bin/chromium` is a shell
 * wrapper that exports Google API keys and adds remote-extension flags from /etc/chromium.d; the binary behind it
 * is started directly instead (same package, none of that).
 */
const CANDIDATES = [
  '/usr/lib/chromium/chromium',
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/** The configured binary, else PERISCOPE_CHROMIUM_PATH, else the first usual path that exists. */
export function findChromium(
  configured: string | null | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (configured) return configured;
  const fromEnv = env.PERISCOPE_CHROMIUM_PATH?.trim();
  if (fromEnv) return fromEnv;
  return CANDIDATES.find((path) => existsSync(path));
}

/**
 * The flags a closed network needs (no background networking, component updates, sync, first-run, field trials,
 * crash upload), plus the isolation Periscope adds: every connection Chromium itself would open goes to the sink
 * proxy (loopback included: `<-loopback>` removes the implicit bypass), host names resolve to nothing, and WebRTC
 * may not use UDP outside the proxy. Page traffic never needs any of it: route interception fulfils every request.
 * `--no-sandbox` because CI and containers run as root; the renderer is still isolated from the network.
 */
export function chromiumArgs(sinkPort: number): string[] {
  return [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-dev-shm-usage',
    '--disable-quic',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-domain-reliability',
    '--disable-breakpad',
    '--disable-client-side-phishing-detection',
    '--disable-default-apps',
    '--disable-extensions',
    '--metrics-recording-only',
    '--no-pings',
    `--proxy-server=http://127.0.0.1:${sinkPort}`,
    '--proxy-bypass-list=<-loopback>',
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    // Account (GAIA) endpoints Chromium calls for every new profile, pointed at a port nothing listens on.
    '--gaia-url=http://127.0.0.1:9',
    '--google-apis-url=http://127.0.0.1:9',
    '--lso-url=http://127.0.0.1:9',
  ];
}

/**
 * Launches headless Chromium through playwright-core, imported on first use (importing Periscope never loads it).
 * Playwright gives every launch a fresh temporary `--user-data-dir` and removes it on close. Never downloads a
 * browser: a missing binary or package is NOT_CONFIGURED.
 */
export async function launchChromium(options: {
  executablePath: string;
  sinkPort: number;
  timeoutMs: number;
}): Promise<Browser> {
  let playwright: typeof import('playwright-core');
  try {
    playwright = await import('playwright-core');
  } catch (error) {
    throw new PeriscopeError('NOT_CONFIGURED', 'the browser back-end needs the playwright-core package', {
      cause: error,
      details: { provider: 'browser', reason: 'missing-playwright' },
    });
  }
  if (!existsSync(options.executablePath)) {
    throw new PeriscopeError('NOT_CONFIGURED', `no Chromium at ${options.executablePath}`, {
      details: { provider: 'browser', reason: 'missing-browser' },
    });
  }
  try {
    return await playwright.chromium.launch({
      executablePath: options.executablePath,
      headless: true,
      chromiumSandbox: false,
      timeout: options.timeoutMs,
      args: chromiumArgs(options.sinkPort),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new PeriscopeError('NETWORK', `browser: Chromium did not start (${message})`, {
      retryable: true,
      cause: error,
      details: { provider: 'browser', reason: 'launch-failed' },
    });
  }
}

import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type LaunchOptions } from 'playwright-core';
import { REPO_ROOT } from './local.ts';

/** Debian's chromium (`bash infra/chromium.sh ensure`): no test tool ever downloads a browser. */
export const CHROMIUM = '/usr/bin/chromium';

// No sandbox (tests may run as root in a container), no GPU, and nothing phoning home while a
// test runs offline.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function chromiumLaunchOptions(): LaunchOptions {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run bash infra/chromium.sh ensure (installs Debian's chromium)`);
  return { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS };
}

/** Headless Debian chromium driven by playwright-core; the caller closes it. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch(chromiumLaunchOptions());
}

/**
 * Headless Debian chromium with a profile of its own in a fresh temporary directory (a person's
 * browser: storage survives across pages); closing the context removes the profile.
 */
export async function launchChromiumContext(options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const launch = chromiumLaunchOptions();
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  try {
    const context = await chromium.launchPersistentContext(profile, { ...launch, ...options });
    // chromium can still write into the profile as it exits (ENOTEMPTY), so removal retries.
    const remove = () => rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    // The 'close' event alone covers a browser that crashed; it must never throw inside
    // playwright's emit, and close() removes the profile again (and reports a failure) once the
    // browser has exited.
    context.once('close', () => void remove().catch(() => undefined));
    const close = context.close.bind(context);
    context.close = async (closeOptions) => {
      await close(closeOptions);
      await remove();
    };
    return context;
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
}

/** Where a test keeps screenshot `name` (`.local/screenshots/<name>`, created if missing). */
export function screenshotPath(name: string): string {
  const dir = join(REPO_ROOT, '.local', 'screenshots');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

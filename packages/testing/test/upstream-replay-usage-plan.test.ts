import { afterEach, describe, expect, it, vi } from 'vitest';

import { startUpstreamReplay } from '../src/upstream-replay.js';
import type { UpstreamReplay } from '../src/index.js';

const open: UpstreamReplay[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function statuses(url: string, count: number): Promise<number[]> {
  const answers: number[] = [];
  for (let index = 0; index < count; index += 1) answers.push((await fetch(url)).status);
  return answers;
}

describe('a route with a usage plan', () => {
  it('answers its burst, then 429 with the limit header, and counts what it throttled', async () => {
    const server = await startUpstreamReplay({
      routes: [
        {
          method: 'GET',
          path: '/things',
          response: { status: 200, body: { ok: true } },
          usagePlan: { ratePerSecond: 0.01, burst: 3, limitHeader: 'x-plan-limit' },
        },
      ],
      standing: { status: 204 },
    });
    open.push(server);
    expect(await statuses(`${server.url}/things`, 5)).toEqual([200, 200, 200, 429, 429]);
    const throttled = await fetch(`${server.url}/things`);
    expect([throttled.status, throttled.headers.get('x-plan-limit'), await throttled.text()]).toEqual([
      429,
      '0.01',
      '{"message":"rate limit exceeded"}',
    ]);
    const other = await fetch(`${server.url}/elsewhere`);
    expect([other.status, other.headers.get('x-plan-limit')]).toEqual([204, null]);
    expect(server.requests.map((request) => request.answeredBy)).toEqual([
      'route',
      'route',
      'route',
      'throttled',
      'throttled',
      'throttled',
      'standing',
    ]);
  });

  it('refills at its rate, answers the throttled response it was given, and starts full again after reset', async () => {
    const route = {
      path: '/fast',
      response: { status: 200, headers: { 'x-kept': 'yes' } },
      usagePlan: {
        ratePerSecond: 20,
        burst: 1,
        limitHeader: 'x-plan-limit',
        throttled: { status: 429, headers: { 'retry-after': '1' }, body: { code: 'QuotaExceeded' } },
      },
    };
    // the bucket's clock is the test's: nothing refills between two requests, however slow the machine
    vi.useFakeTimers({ toFake: ['performance'] });
    const server = await startUpstreamReplay({ routes: [route] });
    open.push(server);
    const first = await fetch(`${server.url}/fast`);
    expect([first.status, first.headers.get('x-kept'), first.headers.get('x-plan-limit')]).toEqual([200, 'yes', '20']);
    const second = await fetch(`${server.url}/fast`);
    expect([second.status, second.headers.get('retry-after'), await second.text()]).toEqual([
      429,
      '1',
      '{"code":"QuotaExceeded"}',
    ]);
    // a token every 50 ms
    vi.advanceTimersByTime(49);
    expect(await statuses(`${server.url}/fast`, 1)).toEqual([429]);
    vi.advanceTimersByTime(50);
    expect(await statuses(`${server.url}/fast`, 1)).toEqual([200]);
    server.reset();
    server.route(route);
    expect(await statuses(`${server.url}/fast`, 1)).toEqual([200]);
  });
});

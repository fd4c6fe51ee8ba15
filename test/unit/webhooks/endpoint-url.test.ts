import { describe, expect, it } from 'vitest';
import { endpointGuard } from '../../../src/webhooks/endpoint-url.js';

const publicName = async () => [{ address: '93.184.216.34', family: 4 as const }];
const rebinding = async () => [{ address: '93.184.216.34', family: 4 as const }, { address: '10.1.2.3', family: 4 as const }];

describe('webhook endpoint URLs', () => {
  it('refuse loopback unless the operator allows it', async () => {
    await expect(endpointGuard({ allowLoopback: false })('https://127.0.0.1:8443/hook')).rejects.toMatchObject({ code: 'invalid_request', param: 'url' });
    await expect(endpointGuard({ allowLoopback: true })('https://127.0.0.1:8443/hook')).resolves.toMatchObject({ address: { address: '127.0.0.1' } });
  });

  it('refuse plain http, credentials, and a name resolving to any private address; accept a public https host', async () => {
    const guard = endpointGuard({ allowLoopback: true, resolver: publicName });
    await expect(guard('http://hooks.example.com/x')).rejects.toMatchObject({ param: 'url' });
    await expect(guard('https://u:p@hooks.example.com/x')).rejects.toMatchObject({ param: 'url' });
    await expect(endpointGuard({ allowLoopback: false, resolver: rebinding })('https://hooks.example.com/x')).rejects.toMatchObject({ param: 'url' });
    await expect(guard('https://hooks.example.com/x')).resolves.toMatchObject({ address: { address: '93.184.216.34' } });
  });
});

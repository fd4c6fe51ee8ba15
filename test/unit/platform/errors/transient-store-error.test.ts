import { ReplyError } from 'ioredis';
import { MongoNetworkError, MongoServerError, MongoWriteConcernError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../../../../src/platform/errors/classify-error.js';

function serverError(code: number, codeName: string, labels: string[] = []): MongoServerError {
  const err = new MongoServerError({ ok: 0, code, codeName, errmsg: `${codeName} during failover` });
  for (const label of labels) err.addErrorLabel(label);
  return err;
}

/** The rejection of a MULTI's exec as ioredis builds it: Redis's EXECABORT, the queued commands' refusals attached. */
function execAborted(refusals: Error[]): Error {
  return Object.assign(new ReplyError('EXECABORT Transaction discarded because of previous errors.'), { previousErrors: refusals });
}

describe('store failover errors', () => {
  it('are 503 with Retry-After for every MongoDB primary change and shutdown', () => {
    const errors = [
      serverError(10107, 'NotWritablePrimary'),
      serverError(11602, 'InterruptedDueToReplStateChange'),
      serverError(189, 'PrimarySteppedDown'),
      serverError(91, 'ShutdownInProgress'),
      serverError(13435, 'NotPrimaryNoSecondaryOk'),
      serverError(112, 'WriteConflict', ['TransientTransactionError']),
      serverError(50, 'MaxTimeMSExpired', ['RetryableWriteError']),
      new MongoWriteConcernError({ ok: 1, writeConcernError: { code: 189, errmsg: 'PrimarySteppedDown' } } as never),
      new MongoNetworkError('connection reset'),
    ];
    for (const err of errors) {
      const classified = classifyError(err);
      expect(classified.code, err.message).toBe('service_unavailable');
      expect(classified.status, err.message).toBe(503);
      expect(classified.retryAfterSeconds, err.message).toBe(1);
    }
  });

  it('are 503 for Redis Cluster redirections, cluster trouble and lost connections', () => {
    const messages = [
      'MOVED 3999 127.0.0.1:7002',
      'ASK 3999 127.0.0.1:7002',
      'CLUSTERDOWN The cluster is down',
      'TRYAGAIN Multiple keys request during rehashing of slot',
      'LOADING Redis is loading the dataset in memory',
      "READONLY You can't write against a read only replica.",
      'MASTERDOWN Link with MASTER is down',
    ];
    for (const m of messages) expect(classifyError(new ReplyError(m)).status, m).toBe(503);
    for (const m of ['Failed to refresh slots cache.', "Cluster isn't ready and enableOfflineQueue options is false", 'Too many Cluster redirections. Last error: MOVED']) {
      expect(classifyError(new Error(m)).status, m).toBe(503);
    }
    const allFailed = Object.assign(new Error('Failed to refresh slots cache.'), { name: 'ClusterAllFailedError' });
    expect(classifyError(allFailed).status).toBe(503);
  });

  it('are 503 for a command ioredis gave up waiting for (commandTimeout)', () => {
    expect(classifyError(new Error('Command timed out')).status).toBe(503);
  });

  it('are 503 for a MULTI that Redis aborted because its commands met a failover', () => {
    for (const refusal of ['CLUSTERDOWN The cluster is down', 'MOVED 3999 127.0.0.1:7002', "READONLY You can't write against a read only replica."]) {
      const classified = classifyError(execAborted([new ReplyError(refusal), new ReplyError(refusal)]));
      expect(classified.code, refusal).toBe('service_unavailable');
      expect(classified.retryAfterSeconds, refusal).toBe(1);
    }
  });

  it('leave a MULTI aborted by a malformed command, or by nothing known, a 500', () => {
    expect(classifyError(execAborted([new ReplyError('CLUSTERDOWN The cluster is down'), new ReplyError("ERR wrong number of arguments for 'set' command")])).status).toBe(500);
    expect(classifyError(execAborted([])).status).toBe(500);
    expect(classifyError(new ReplyError('EXECABORT Transaction discarded because of previous errors.')).status).toBe(500);
  });

  it('leave real faults alone: a duplicate key, a bad command, a script bug stay 500', () => {
    const faults = [serverError(11000, 'DuplicateKey'), serverError(2, 'BadValue'), new ReplyError('ERR wrong number of arguments'), new ReplyError('CROSSSLOT Keys in request don\'t hash to the same slot'), new Error('boom')];
    for (const err of faults) expect(classifyError(err).status, err.message).toBe(500);
  });
});

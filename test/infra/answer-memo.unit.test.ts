import { VersionedAnswerMemo, computedEachTime } from '../../src/infra/read-models/answer-memo';

/** A read-model state whose version the test moves, and an answer computed from it that counts its computations. */
function readModels(initial: string | null = '1') {
  const state = { version: initial, value: 'a', computations: 0 };
  const compute = async () => {
    state.computations += 1;
    return JSON.stringify({ value: state.value });
  };
  return { state, compute };
}

describe('answer memo', () => {
  it('given an answer computed once, when it is asked again with no change, then the same text comes without computing', async () => {
    // given
    const { state, compute } = readModels();
    const memo = new VersionedAnswerMemo(() => state.version);
    const first = await memo.json('k', ['s'], compute);
    // when
    const second = await memo.json('k', ['s'], compute);
    // then
    expect(second).toBe(first);
    expect(state.computations).toBe(1);
  });

  it('given an answer remembered, when the read models change, then the next ask computes it from the new state', async () => {
    // given
    const { state, compute } = readModels();
    const memo = new VersionedAnswerMemo(() => state.version);
    await memo.json('k', ['s'], compute);
    // when
    state.value = 'b';
    state.version = '2';
    // then
    expect(JSON.parse(await memo.json('k', ['s'], compute))).toEqual({ value: 'b' });
    expect(state.computations).toBe(2);
  });

  it('given an answer read from two scopes, when another scope changes, then it is kept; when one of its own changes, it is computed again', async () => {
    // given
    const versions = new Map([
      ['directory', '1'],
      ['view:c:1:1', '1'],
      ['view:c:1:50', '1'],
    ]);
    const memo = new VersionedAnswerMemo((scope) => versions.get(scope) ?? '0');
    let computations = 0;
    const ask = () =>
      memo.json('k', ['directory', 'view:c:1:1'], async () => {
        computations += 1;
        return '"answer"';
      });
    await ask();
    // when: a save in project 50
    versions.set('view:c:1:50', '2');
    await ask();
    // then
    expect(computations).toBe(1);
    // when: a directory change
    versions.set('directory', '2');
    await ask();
    // then
    expect(computations).toBe(2);
  });

  it('given two keys, when each is asked, then each gets its own answer', async () => {
    // given
    const state = { version: '1' };
    const memo = new VersionedAnswerMemo(() => state.version);
    // when
    const a = await memo.json('a', ['s'], async () => '"for a"');
    const b = await memo.json('b', ['s'], async () => '"for b"');
    // then
    expect([a, b, await memo.json('a', ['s'], async () => 'not asked')]).toEqual(['"for a"', '"for b"', '"for a"']);
  });

  it('given the read models change while an answer is computed, when it is asked again, then it is computed again', async () => {
    // given
    const { state, compute } = readModels();
    const memo = new VersionedAnswerMemo(() => state.version);
    // when: the version moves between the start and the end of the computation
    await memo.json('k', ['s'], async () => {
      const text = await compute();
      state.version = '2';
      return text;
    });
    state.value = 'b';
    // then
    expect(JSON.parse(await memo.json('k', ['s'], compute))).toEqual({ value: 'b' });
  });

  it('given a write transaction open (no version), when the same answer is asked twice, then it is computed twice', async () => {
    // given
    const { state, compute } = readModels(null);
    const memo = new VersionedAnswerMemo(() => state.version);
    // when
    await memo.json('k', ['s'], compute);
    await memo.json('k', ['s'], compute);
    // then
    expect(state.computations).toBe(2);
  });

  describe('given room for two texts of four characters, holding a then b, a asked last', () => {
    const computations: string[] = [];
    const text = (t: string) => async () => {
      computations.push(t);
      return t;
    };
    let memo: VersionedAnswerMemo;

    beforeEach(async () => {
      computations.length = 0;
      memo = new VersionedAnswerMemo(() => '1', 8);
      await memo.json('a', ['s'], text('aaaa'));
      await memo.json('b', ['s'], text('bbbb'));
      await memo.json('a', ['s'], text('aaaa'));
    });

    it('when a third is kept, then the least recently asked (b) goes and a stays', async () => {
      // when
      await memo.json('c', ['s'], text('cccc'));
      // then
      await memo.json('a', ['s'], text('aaaa'));
      await memo.json('c', ['s'], text('cccc'));
      await memo.json('b', ['s'], text('bbbb'));
      expect(computations).toEqual(['aaaa', 'bbbb', 'cccc', 'bbbb']);
    });

    it('when a text longer than the room is asked twice, then it is computed twice and the others stay', async () => {
      // when
      await memo.json('long', ['s'], text('lllllllll'));
      await memo.json('long', ['s'], text('lllllllll'));
      // then
      await memo.json('a', ['s'], text('aaaa'));
      await memo.json('b', ['s'], text('bbbb'));
      expect(computations).toEqual(['aaaa', 'bbbb', 'lllllllll', 'lllllllll']);
    });
  });

  it('given no memo (MongoDB), when an answer is asked twice, then it is computed twice', async () => {
    // given
    const { state, compute } = readModels();
    // when
    await computedEachTime.json('k', ['s'], compute);
    await computedEachTime.json('k', ['s'], compute);
    // then
    expect(state.computations).toBe(2);
  });
});

import { VersionedAnswerMemo, computedEachTime } from '../../src/projections/answer-memo';

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
  it('given an answer asked once, when it is asked again, then it is computed again and kept; the third ask gets the same text without computing', async () => {
    // given
    const { state, compute } = readModels();
    const memo = new VersionedAnswerMemo(() => state.version);
    const first = await memo.json('k', ['s'], compute);
    // when
    const second = await memo.json('k', ['s'], compute);
    const third = await memo.json('k', ['s'], compute);
    // then
    expect([second, third]).toEqual([first, first]);
    expect(state.computations).toBe(2);
  });

  it('given many keys each asked once (varied traffic), then none is kept and none pushes out a kept one', async () => {
    // given: one answer kept
    const memo = new VersionedAnswerMemo(() => '1', 8);
    await memo.json('polled', ['s'], async () => 'pppp');
    await memo.json('polled', ['s'], async () => 'pppp');
    // when: more once-asked answers than the room holds
    for (let i = 0; i < 10; i++) await memo.json(`once ${i}`, ['s'], async () => 'oooo');
    // then
    expect(await memo.json('polled', ['s'], async () => 'computed again')).toBe('pppp');
  });

  it.each([
    ['soon after, among the last few keys asked', 3, 2],
    ['only after more other keys than the window holds', 4, 3],
  ])(
    'given a key asked once, when it is asked again %s, then kept when it was soon (window of 4 keys)',
    async (_case, othersBetween, computationsAfterThirdAsk) => {
      // given
      const { state, compute } = readModels();
      const memo = new VersionedAnswerMemo(() => state.version, 1_000, 4);
      await memo.json('polled', ['s'], compute);
      for (let i = 0; i < othersBetween; i++) await memo.json(`other ${i}`, ['s'], async () => '"other"');
      // when
      await memo.json('polled', ['s'], compute);
      await memo.json('polled', ['s'], compute);
      // then: kept at the second ask (2 computations), or the second ask counted as a first (3)
      expect(state.computations).toBe(computationsAfterThirdAsk);
    },
  );

  it('given an answer kept, when the read models change, then the next ask computes it from the new state', async () => {
    // given
    const { state, compute } = readModels();
    const memo = new VersionedAnswerMemo(() => state.version);
    await memo.json('k', ['s'], compute);
    await memo.json('k', ['s'], compute);
    // when
    state.value = 'b';
    state.version = '2';
    // then
    expect(JSON.parse(await memo.json('k', ['s'], compute))).toEqual({ value: 'b' });
    expect(state.computations).toBe(3);
  });

  it('given an answer read from two scopes and kept, when another scope changes, then it is still served; when one of its own changes, it is computed again', async () => {
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
    await ask();
    // when: a save in project 50
    versions.set('view:c:1:50', '2');
    await ask();
    // then
    expect(computations).toBe(2);
    // when: a directory change
    versions.set('directory', '2');
    await ask();
    // then
    expect(computations).toBe(3);
  });

  it('given two keys kept, when each is asked, then each gets its own answer', async () => {
    // given
    const memo = new VersionedAnswerMemo(() => '1');
    for (let i = 0; i < 2; i++) {
      await memo.json('a', ['s'], async () => '"for a"');
      await memo.json('b', ['s'], async () => '"for b"');
    }
    // when, then
    expect([
      await memo.json('a', ['s'], async () => 'not asked'),
      await memo.json('b', ['s'], async () => 'not asked'),
    ]).toEqual(['"for a"', '"for b"']);
  });

  it('given the read models change while an answer is computed, when it is asked again, then it is computed again', async () => {
    // given
    const { state, compute } = readModels();
    const memo = new VersionedAnswerMemo(() => state.version);
    await memo.json('k', ['s'], compute);
    // when: the version moves between the start and the end of the second computation
    await memo.json('k', ['s'], async () => {
      const text = await compute();
      state.version = '2';
      return text;
    });
    state.value = 'b';
    // then
    expect(JSON.parse(await memo.json('k', ['s'], compute))).toEqual({ value: 'b' });
  });

  it('given a write transaction open (no version), when the same answer is asked three times, then it is computed three times', async () => {
    // given
    const { state, compute } = readModels(null);
    const memo = new VersionedAnswerMemo(() => state.version);
    // when
    for (let i = 0; i < 3; i++) await memo.json('k', ['s'], compute);
    // then
    expect(state.computations).toBe(3);
  });

  describe('given room for two texts of four characters, holding a then b, a asked last', () => {
    const computations: string[] = [];
    const text = (t: string) => async () => {
      computations.push(t);
      return t;
    };
    let memo: VersionedAnswerMemo;
    /** Asked twice, so kept. */
    const keep = async (key: string, t: string) => {
      await memo.json(key, ['s'], text(t));
      await memo.json(key, ['s'], text(t));
    };

    beforeEach(async () => {
      memo = new VersionedAnswerMemo(() => '1', 8);
      await keep('a', 'aaaa');
      await keep('b', 'bbbb');
      await memo.json('a', ['s'], text('aaaa'));
      computations.length = 0;
    });

    it('when a third is kept, then the least recently asked (b) goes and a stays', async () => {
      // when
      await keep('c', 'cccc');
      // then
      await memo.json('a', ['s'], text('aaaa'));
      await memo.json('c', ['s'], text('cccc'));
      await memo.json('b', ['s'], text('bbbb'));
      expect(computations).toEqual(['cccc', 'cccc', 'bbbb']);
    });

    it('when a text longer than the room is asked three times, then it is computed three times and the others stay', async () => {
      // when
      for (let i = 0; i < 3; i++) await memo.json('long', ['s'], text('lllllllll'));
      // then
      await memo.json('a', ['s'], text('aaaa'));
      await memo.json('b', ['s'], text('bbbb'));
      expect(computations).toEqual(['lllllllll', 'lllllllll', 'lllllllll']);
    });
  });

  it('given no memo (MongoDB), when an answer is asked three times, then it is computed three times', async () => {
    // given
    const { state, compute } = readModels();
    // when
    for (let i = 0; i < 3; i++) await computedEachTime.json('k', ['s'], compute);
    // then
    expect(state.computations).toBe(3);
  });
});

// The page's shared functions in Node, without a browser: move numbers from a
// start position (the move list, the variation tree and the refusal words
// all count with them), refusals in words by their code, the result texts,
// and oneAtATime.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { finishedText, moveNumber, oneAtATime, outcomeHead, resultText } from '../../web/js/common.js';
import { moveRows } from '../../web/js/movelist.js';
import { ApiError } from '../../web/js/api.js';
import { START_FEN, parseFen } from '../../web/js/fen.js';
import { explainRefusal } from '../../web/js/words.js';
import { clockText, daysText, timeControlText, timeControlOfFull } from '../../web/js/clock.js';

const BLACK_17 = '8/8/8/8/8/8/8/K1k5 b - - 3 17';

test('move numbers count from the start position', () => {
  for (const start of [undefined, '', 'startpos', 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1']) {
    assert.deepEqual([1, 2, 3, 4].map((ply) => moveNumber(start, ply)), [
      { number: 1, white: true }, { number: 1, white: false }, { number: 2, white: true }, { number: 2, white: false },
    ]);
  }
  assert.deepEqual([1, 2, 3].map((ply) => moveNumber(BLACK_17, ply)), [
    { number: 17, white: false }, { number: 18, white: true }, { number: 18, white: false },
  ]);
  // No move number in the FEN: the first move is number 1.
  assert.deepEqual(moveNumber('8/8/8/8/8/8/8/K1k5 b - -', 2), { number: 2, white: true });
});

test('refusals are put in words by their code, not by their English', () => {
  const { units } = parseFen(START_FEN);
  const reason = 'ChessMerge pawns move one square at a time (no two-square step)';
  // A game's move (HTTP or socket): the rules' reason after the move.
  assert.equal(explainRefusal(new ApiError(422, `illegal move e2e4: ${reason}`, 'illegal_move'), { uci: 'e2e4', units }),
    `Pawn e2–e4 is not allowed: ${reason}.`);
  // A line's last move on the practice board: numbered from the line's start.
  assert.equal(explainRefusal(new ApiError(422, `move 3 (illegal move e2e4: ${reason})`, 'unprocessable'), { uci: 'e2e4', ply: 3, fen: BLACK_17 }),
    `Move 18, Black: e2–e4 is not allowed: ${reason}.`);
  // Other words from the server are kept whole: the code decides.
  assert.equal(explainRefusal(new ApiError(422, 'no reason given', 'illegal_move'), { uci: 'e2e4' }), 'e2–e4 is not allowed: no reason given.');
  assert.equal(explainRefusal(new ApiError(409, 'illegal move e2e4: not now', 'not_your_turn'), { uci: 'e2e4' }), 'It is not your move.');
  assert.equal(explainRefusal(new ApiError(409, 'the game is over (mate)', 'game_over'), { uci: 'e2e4', ply: 2 }), 'Move 1, Black: the game is over.');
  assert.equal(explainRefusal(new ApiError(403, 'a new refusal', 'forbidden'), { uci: 'e2e4' }), 'A new refusal.');
});

test('the move list starts with "17… move" when Black begins', () => {
  assert.deepEqual(moveRows(BLACK_17, ['Kb2', 'Kc2', 'Kb3']), [
    { n: 17, w: null, b: { san: 'Kb2', i: 0 } },
    { n: 18, w: { san: 'Kc2', i: 1 }, b: { san: 'Kb3', i: 2 } },
  ]);
  assert.deepEqual(moveRows('startpos', ['e3', 'e6', 'Nf3']), [
    { n: 1, w: { san: 'e3', i: 0 }, b: { san: 'e6', i: 1 } },
    { n: 2, w: { san: 'Nf3', i: 2 }, b: null },
  ]);
  assert.deepEqual(moveRows('', []), []);
});

test('result texts', () => {
  assert.equal(resultText({ status: 'started' }), null);
  assert.deepEqual(resultText({ status: 'mate', winner: 'white' }), { head: 'White wins', why: 'by checkmate' });
  assert.deepEqual(resultText({ status: 'resign', winner: 'black', reason: 'White resigned' }), { head: 'Black wins', why: 'White resigned' });
  assert.deepEqual(resultText({ status: 'draw', reason: 'agreement' }), { head: 'Draw', why: 'by agreement' });
  assert.deepEqual(resultText({ status: 'draw' }), { head: 'Draw', why: 'drawn' });
  assert.equal(resultText({ status: 'aborted' })?.head, 'Game aborted');
  assert.equal(resultText({ status: 'aborted', reason: 'white did not make a first move in time' })?.why, 'Nobody won: white did not make a first move in time.');
  assert.deepEqual(resultText({ status: 'outoftime', winner: 'black', reason: 'white ran out of time' }), { head: 'Black wins', why: 'on time (white ran out of time)' });
  assert.deepEqual(resultText({ status: 'outoftime', reason: 'white ran out of time, but black has only its king' }), { head: 'Draw', why: 'White ran out of time, but black has only its king' });
  assert.equal(outcomeHead({ status: 'mate', winner: 'white', you: 'black' }), 'You lost');
  assert.equal(outcomeHead({ status: 'mate', winner: 'white', you: null }), 'White won');
  assert.equal(finishedText({ status: 'mate', winner: 'white' }, true), 'won by checkmate');
  assert.equal(finishedText({ status: 'outoftime', winner: 'white' }, false), 'lost on time');
  assert.equal(finishedText({ status: 'stalemate' }, true), 'draw by stalemate');
  assert.equal(finishedText({ status: 'draw' }, true), 'draw');
  assert.equal(finishedText({ status: 'aborted' }, true), 'aborted');
});

test('clock readings and time controls in words', () => {
  assert.deepEqual([180_000, 179_001, 10_000, 9_999, 9_400, 50, 0, -20, 3_723_000].map(clockText),
    ['3:00', '2:59', '0:10', '0:09.9', '0:09.4', '0:00.0', '0:00.0', '0:00.0', '1:02:03']);
  assert.deepEqual([3 * 86_400_000, 86_400_000 * 2 + 5 * 3_600_000 + 1, 86_400_000, 5 * 3_600_000 + 12 * 60_000, 3_600_000, 12 * 60_000 + 59_000, 30_000].map(daysText),
    ['3 days', '2 days 5 h', '1 day', '5 h 12 min', '1 h', '12 min', 'under a minute']);
  assert.equal(timeControlText({ type: 'clock', limit: 180, increment: 2, show: '3+2' }), '3+2');
  assert.equal(timeControlText({ type: 'correspondence', daysPerTurn: 1 }), '1 day');
  assert.equal(timeControlText({ type: 'correspondence', daysPerTurn: 14 }), '14 days');
  assert.equal(timeControlText({ type: 'unlimited' }), 'Unlimited');
  assert.equal(timeControlText(undefined), 'Unlimited');
  assert.deepEqual(timeControlOfFull({ clock: { initial: 30_000, increment: 0 } }), { type: 'clock', limit: 30, increment: 0, show: '½+0' });
  assert.deepEqual(timeControlOfFull({ clock: { initial: 90_000, increment: 1000 } }), { type: 'clock', limit: 90, increment: 1, show: '1.5+1' });
  assert.deepEqual(timeControlOfFull({ clock: null, daysPerTurn: 3 }), { type: 'correspondence', daysPerTurn: 3 });
  assert.deepEqual(timeControlOfFull({ clock: null }), { type: 'unlimited' });
});

test('oneAtATime runs a task once at a time, once more for the calls meanwhile', async () => {
  let runs = 0;
  let release = () => {};
  const run = oneAtATime(async () => {
    runs++;
    await new Promise((resolve) => { release = resolve; });
  });
  const first = run();
  const second = run();
  const third = run();
  await Promise.resolve();
  assert.equal(runs, 1);
  release();
  // The two calls made while it ran ask for one more run, not two.
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(runs, 2);
  release();
  assert.deepEqual(await Promise.all([first, second, third]), [true, false, false]);
  assert.equal(runs, 2);
  // A task answering false stops the runs asked for meanwhile.
  let stops = 0;
  const stopping = oneAtATime(async () => { stops++; await Promise.resolve(); return false; });
  await Promise.all([stopping(), stopping()]);
  assert.equal(stops, 1);
});

test('a FEN reads only piece letters, so an address cannot put markup on the board', () => {
  for (const bad of [
    '8/8/8/8/8/8/8/(<img src=x onerror=alert(1)>)7 w - - 0 1',
    '8/8/8/8/8/8/8/<b>hi</b>4 w - - 0 1',
    '8/8/8/8/8/8/8/(Np)7 w - - 0 1',
    '8/8/8/8/8/8/8/(NP7 w - - 0 1',
    '8/8/8/8/8/8/8/8K w - - 0 1',
  ]) assert.throws(() => parseFen(bad), /bad FEN/, bad);
  const { units } = parseFen('8/8/8/8/8/8/8/(NP)6k w - - 0 1');
  assert.deepEqual(units.a1, { color: 'w', roles: ['N', 'P'] });
  assert.deepEqual(units.h1, { color: 'b', roles: ['K'] });
});

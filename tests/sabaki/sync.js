// Drives `ryoshi gtp` through Sabaki's engine layer (@sabaki/gtp) the way Sabaki's EngineSyncer
// does: the start-up queries, then ControllerStateTracker.sync() with komi, board size, time
// settings and a history whose root handicap stones go out as `set_free_handicap` (Sabaki
// sorts the vertices as JavaScript sorts [x, y] arrays), genmove through the tracker's queue,
// incremental syncs (only the new moves), navigating back (undo), a new game (clear_board and
// replay), and fixed/free handicap answers the tracker must parse.
//
// Usage: node sync.js <path to ryoshi>. Prints the GTP log (`> command`, `< reply`) and ends
// with `sabaki sync ok`; exits with status 1 on the first failure.

const {Controller, ControllerStateTracker} = require('@sabaki/gtp')

const alpha = 'ABCDEFGHJKLMNOPQRSTUVWXYZ'
const size = 9
const log = []

// Sabaki's stringifyVertex for [x, y] with y = 0 at the top.
const stringify = ([x, y]) => `${alpha[x]}${size - y}`
const parse = v => [alpha.indexOf(v[0].toUpperCase()), size - +v.slice(1)]

function fail(message) {
  console.log(log.join('\n'))
  console.log(`FAILED: ${message}`)
  process.exit(1)
}

// The stones `history` puts on the board (the test's moves capture nothing).
function expectedStones(history) {
  let stones = new Map()
  for (let {name, args} of history) {
    if (name === 'set_free_handicap') args.forEach(v => stones.set(v, 'X'))
    if (name === 'play' && args[1].toLowerCase() !== 'pass')
      stones.set(args[1].toUpperCase(), args[0] === 'B' ? 'X' : 'O')
  }
  return stones
}

// The stones of a `showboard` reply.
function shownStones(text) {
  let stones = new Map()
  for (let line of text.split('\n')) {
    let m = line.trim().match(/^(\d+)\s+(.*)\s+\1$/)
    if (!m) continue
    m[2].split(/\s+/).forEach((c, x) => {
      if (c === 'X' || c === 'O') stones.set(`${alpha[x]}${m[1]}`, c)
    })
  }
  return stones
}

async function checkBoard(controller, history, step) {
  let res = await controller.sendCommand({name: 'showboard'})
  if (res.error) fail(`${step}: showboard failed`)
  let want = expectedStones(history)
  let got = shownStones(res.content)
  let same = want.size === got.size && [...want].every(([v, c]) => got.get(v) === c)
  if (!same)
    fail(`${step}: board ${JSON.stringify([...got])} != ${JSON.stringify([...want])}`)
}

// Sabaki's handicap history entry for root AB stones.
function handicapEntry(vertices) {
  let coords = vertices
    .map(parse)
    .sort()
    .map(stringify)
  return {name: 'set_free_handicap', args: coords}
}

async function main() {
  let path = process.argv[2]
  if (!path) fail('usage: node sync.js <path to ryoshi>')

  let controller = new Controller(path, ['gtp'])
  let tracker = new ControllerStateTracker(controller)
  controller.on('command-sent', ({command}) => {
    log.push(`> ${[command.name, ...command.args].join(' ')}`)
  })
  controller.on('response-received', ({response}) => {
    log.push(`< ${response.error ? '?' : '='} ${response.content.replace(/\n/g, '\\n')}`)
  })

  // What Sabaki sends when the engine starts.
  let started = new Promise(resolve => controller.once('started', resolve))
  controller.start()
  await started
  let [name, , protocol, commands] = await Promise.all([
    controller.sendCommand({name: 'name'}),
    controller.sendCommand({name: 'version'}),
    controller.sendCommand({name: 'protocol_version'}),
    controller.sendCommand({name: 'list_commands'})
  ])
  if (name.content !== 'ryoshi' || protocol.content !== '2') fail('start-up queries')
  for (let c of [
    'set_free_handicap',
    'fixed_handicap',
    'place_free_handicap',
    'time_settings',
    'kgs-time_settings',
    'time_left',
    'final_score',
    'kgs-genmove_cleanup',
    'undo'
  ]) {
    if (!commands.content.split('\n').includes(c)) fail(`list_commands lacks ${c}`)
  }

  // 1. A handicap game with time settings: komi, boardsize, time_settings, clear_board and the
  //    replayed history.
  let timeSettings = {mainTime: 300, byoyomiTime: 30, byoyomiStones: 5}
  let history = [
    handicapEntry(['G7', 'C3']),
    {name: 'play', args: ['W', 'E5']},
    {name: 'play', args: ['B', 'D6']},
    {name: 'play', args: ['W', 'F4']}
  ]
  await tracker.sync({komi: 0.5, boardsize: [size, size], timeSettings, history})
  await checkBoard(controller, history, 'first sync')

  // 2. The engine's move, through the tracker's queue as Sabaki sends it.
  let genmove = await tracker.queueCommand({name: 'genmove', args: ['B']})
  if (genmove.error || !/^[A-HJ-T]\d+$/i.test(genmove.content))
    fail(`genmove B: ${genmove.content}`)
  history = [...history, {name: 'play', args: ['B', genmove.content.toUpperCase()]}]
  await checkBoard(controller, history, 'after genmove')

  // 3. The user answers: an incremental sync sends just this move.
  let sent = log.length
  let reply = ['E3', 'D4', 'F6', 'C5'].find(v => !expectedStones(history).has(v))
  history = [...history, {name: 'play', args: ['W', reply]}]
  await tracker.sync({komi: 0.5, boardsize: [size, size], timeSettings, history})
  let incremental = log.slice(sent).filter(l => l.startsWith('>'))
  if (incremental.join('|') !== `> play W ${reply}`)
    fail(`incremental sync sent ${JSON.stringify(incremental)}`)
  await checkBoard(controller, history, 'incremental sync')

  // 4. Back two moves in the game tree: two undos.
  sent = log.length
  history = history.slice(0, -2)
  await tracker.sync({komi: 0.5, boardsize: [size, size], timeSettings, history})
  let undos = log.slice(sent).filter(l => l.startsWith('>'))
  if (undos.join('|') !== '> undo|> undo') fail(`navigating back sent ${JSON.stringify(undos)}`)
  await checkBoard(controller, history, 'after undo')

  // 5. Back to the handicap alone: more undos than shared history, so the tracker replays.
  sent = log.length
  await tracker.sync({komi: 0.5, boardsize: [size, size], timeSettings, history: [history[0]]})
  let back = log.slice(sent).filter(l => l.startsWith('>'))
  if (back.join('|') !== '> clear_board|> set_free_handicap C3 G7')
    fail(`back to the handicap sent ${back}`)
  await checkBoard(controller, [history[0]], 'back to the handicap')

  // 6. A new game: other komi, time settings and handicap; the tracker replays from
  //    clear_board.
  timeSettings = {mainTime: 60, byoyomiTime: 10, byoyomiStones: 1}
  history = [handicapEntry(['G3', 'C7', 'G7']), {name: 'play', args: ['W', 'E5']}]
  sent = log.length
  await tracker.sync({komi: 7.5, boardsize: [size, size], timeSettings, history})
  let replay = log.slice(sent).filter(l => l.startsWith('>'))
  let wanted = [
    '> komi 7.5',
    '> time_settings 60 10 1',
    '> clear_board',
    '> set_free_handicap C7 G7 G3',
    '> play W E5'
  ]
  if (replay.join('|') !== wanted.join('|')) fail(`new game sent ${JSON.stringify(replay)}`)
  await checkBoard(controller, history, 'new game')
  let second = await tracker.queueCommand({name: 'genmove', args: ['B']})
  if (second.error) fail('genmove under time settings')

  // 7. Engine-placed handicap: the tracker records the vertices the engine answers.
  for (let [command, count] of [['fixed_handicap', 4], ['place_free_handicap', 3]]) {
    await tracker.queueCommand({name: 'clear_board'})
    let res = await tracker.queueCommand({name: command, args: [`${count}`]})
    if (res.error || res.content.trim().split(/\s+/).length !== count)
      fail(`${command} ${count}: ${res.content}`)
    let tracked = tracker.state.history
    if (tracked.length !== 1 || tracked[0].name !== 'set_free_handicap')
      fail(`${command}: tracker history ${JSON.stringify(tracked)}`)
    // Syncing to the tracker's own state plus one move sends only that move.
    sent = log.length
    let next = [...tracked, {name: 'play', args: ['W', 'E5']}]
    await tracker.sync({komi: 7.5, boardsize: [size, size], timeSettings, history: next})
    let extra = log.slice(sent).filter(l => l.startsWith('>'))
    if (extra.join('|') !== '> play W E5') fail(`${command}: sync sent ${extra}`)
    await checkBoard(controller, next, command)
  }

  let score = await controller.sendCommand({name: 'final_score'})
  if (score.error || !/^(B\+|W\+)\d+(\.\d+)?$|^0$/.test(score.content))
    fail(`final_score: ${score.content}`)

  let errors = log.filter(l => l.startsWith('< ?'))
  if (errors.length > 0) fail(`error replies: ${errors}`)
  await controller.stop()
  console.log(log.join('\n'))
  console.log(`sabaki sync ok: ${log.filter(l => l.startsWith('>')).length} commands`)
}

main().catch(err => fail(err.stack || `${err}`))

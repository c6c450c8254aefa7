// Live analysis of `ryoshi gtp` through Sabaki's engine layer (@sabaki/gtp), as Sabaki drives
// it: Sabaki offers analysis for an engine whose `list_commands` holds one of its setting
// `engines.analyze_commands` (analyze, kata-analyze, lz-analyze; the first one listed is used)
// and sends it as `<command> <color> <interval>`; the stream runs until Sabaki's next command.
// Sabaki's `genmove_analyze` forms go through ControllerStateTracker, which reads the
// `play <vertex>` line.
//
// The `info` lines are read by the rules of Sabaki's analysis reader: segments split at `info`,
// `key value` pairs, then `pv` and the vertices to the end of the segment (cut at a pass);
// a command whose name starts with `kata` is read in KataGo's form (win rate a fraction), any
// other in Leela Zero's (win rate in 1/10000). Sabaki's win rate graph takes the highest win
// rate of the listed moves: it must be the best (first, most visited) move's.
//
// Usage: node analyze.js <path to ryoshi>. Prints a summary and ends with `sabaki analyze ok`;
// exits with status 1 on the first failure.

const {Controller, ControllerStateTracker} = require('@sabaki/gtp')

const SABAKI_ANALYZE_COMMANDS = ['analyze', 'kata-analyze', 'lz-analyze']
const SABAKI_GENMOVE_ANALYZE_COMMANDS = [
  'genmove_analyze',
  'kata-genmove_analyze',
  'lz-genmove_analyze'
]
const size = 9
const vertexPattern = /^([A-HJ-T])([1-9]\d?)$/

function fail(message) {
  console.log(`FAILED: ${message}`)
  process.exit(1)
}

// One `info` line as the variations Sabaki shows.
function variations(line) {
  let out = []
  for (let segment of line.split(/\s*info\s+/).slice(1)) {
    let tokens = segment.trim().split(/\s+/)
    let pvAt = tokens.indexOf('pv')
    if (pvAt < 0) fail(`no pv in '${segment}'`)
    let fields = {}
    for (let i = 0; i + 1 < pvAt; i += 2) fields[tokens[i]] = tokens[i + 1]
    let pv = []
    for (let v of tokens.slice(pvAt + 1)) {
      if (v === 'pass' || !vertexPattern.test(v)) break
      pv.push(v)
    }
    out.push({...fields, pv, trailing: tokens.slice(pvAt + 1 + pv.length)})
  }
  return out
}

function winrate(text) {
  return text.includes('.') ? +text * 100 : +text / 100
}

function check(variation, kata) {
  let {move, visits, pv} = variation
  if (!vertexPattern.test(move) && move !== 'pass') fail(`move '${move}'`)
  if (!(+visits > 0)) fail(`visits '${visits}'`)
  let w = winrate(variation.winrate)
  if (!(w >= 0 && w <= 100)) fail(`winrate '${variation.winrate}'`)
  if (kata !== variation.winrate.includes('.')) fail(`winrate form '${variation.winrate}'`)
  if (kata && !Number.isFinite(+variation.scoreLead)) fail(`scoreLead '${variation.scoreLead}'`)
  if (variation.order == null || variation.prior == null) fail('order or prior missing')
  if (move !== 'pass' && pv[0] !== move) fail(`pv ${pv} does not start with ${move}`)
}

// Sends `command` and collects its info lines until `stopAfterMs`, then sends `next` (which
// ends the stream, as in Sabaki) and returns both responses and the lines.
async function stream(controller, command, stopAfterMs, next) {
  let lines = []
  let response = controller.sendCommand(command, ({line}) => {
    if (line.startsWith('info ')) lines.push(line)
  })
  await new Promise(resolve => setTimeout(resolve, stopAfterMs))
  let after = await controller.sendCommand(next)
  return {response: await response, after, lines}
}

async function main() {
  let path = process.argv[2]
  if (!path) fail('usage: node analyze.js <path to ryoshi>')
  let controller = new Controller(path, ['gtp', '--threads', '1'])
  let tracker = new ControllerStateTracker(controller)
  let started = new Promise(resolve => controller.once('started', resolve))
  controller.start()
  await started

  // What Sabaki decides from list_commands.
  let list = await controller.sendCommand({name: 'list_commands'})
  let commands = list.content.split('\n').map(x => x.trim())
  if (!commands.some(x => SABAKI_ANALYZE_COMMANDS.includes(x)))
    fail('Sabaki would say: the engine does not support analysis')
  let chosen = SABAKI_ANALYZE_COMMANDS.find(x => commands.includes(x))
  let genmoveChosen = SABAKI_GENMOVE_ANALYZE_COMMANDS.find(x => commands.includes(x))
  console.log(`Sabaki would analyse with '${chosen}' and play with '${genmoveChosen}'`)

  await tracker.sync({
    komi: 7,
    boardsize: [size, size],
    history: [{name: 'play', args: ['B', 'E5']}, {name: 'play', args: ['W', 'C3']}]
  })

  for (let [name, kata] of [['analyze', false], ['kata-analyze', true], ['lz-analyze', false]]) {
    let {response, after, lines} = await stream(
      controller,
      {name, args: ['B', '10']},
      1500,
      {name: 'name'}
    )
    if (response.error) fail(`${name}: ${response.content}`)
    if (after.error || after.content !== 'ryoshi') fail(`${name}: the next command's reply`)
    if (lines.length < 2) fail(`${name}: ${lines.length} info lines in 1.5 s at interval 10`)
    let last = variations(lines[lines.length - 1])
    if (last.length === 0) fail(`${name}: no variation`)
    last.forEach(v => check(v, kata))
    // Sabaki's reading: the form by the command's name, then the highest win rate.
    let shown = last.map(v => (kata ? +v.winrate * 100 : +v.winrate / 100))
    let sabaki = Math.max(...shown)
    if (!(sabaki >= 0 && sabaki <= 100)) fail(`${name}: Sabaki would show ${sabaki}%`)
    if (sabaki !== shown[0])
      fail(`${name}: Sabaki would show ${sabaki}% where the best move has ${shown[0]}%`)
    let visits = last.map(v => +v.visits)
    if (visits.some((v, i) => i > 0 && v > visits[i - 1])) fail(`${name}: not by visits`)
    console.log(`${name}: ${lines.length} lines, best ${last[0].move} ` +
      `${winrate(last[0].winrate).toFixed(1)}% after ${last[0].visits} visits, pv ${last[0].pv.join(' ')}`)
  }

  // KataGo's ownership: one value per point, in [-1, 1], after the last variation.
  let {lines} = await stream(
    controller,
    {name: 'kata-analyze', args: ['W', '20', 'ownership', 'true']},
    1000,
    {name: 'name'}
  )
  if (lines.length === 0) fail('kata-analyze ownership: no line')
  let all = variations(lines[lines.length - 1])
  let tail = all[all.length - 1].trailing
  if (tail[0] !== 'ownership') fail(`no ownership after the last pv: ${tail.slice(0, 3)}`)
  let ownership = tail.slice(1).map(Number)
  if (ownership.length !== size * size || ownership.some(x => !(x >= -1 && x <= 1)))
    fail(`ownership has ${ownership.length} values`)
  console.log(`kata-analyze ownership: ${ownership.length} values`)

  // genmove_analyze through the tracker: the move is recorded from the `play` line.
  let before = tracker.state.history.length
  let info = 0
  let res = await controller.sendCommand({name: genmoveChosen, args: ['B', '10']}, ({line}) => {
    if (line.startsWith('info ')) info++
  })
  if (res.error) fail(`${genmoveChosen}: ${res.content}`)
  let played = res.content.split('\n').find(l => l.startsWith('play '))
  if (!played) fail(`${genmoveChosen}: no play line`)
  await new Promise(resolve => setTimeout(resolve, 100))
  let history = tracker.state.history
  if (history.length !== before + 1 || history[history.length - 1].name !== 'play')
    fail(`the tracker did not record the move: ${JSON.stringify(history)}`)
  console.log(`${genmoveChosen}: ${info} info lines, then '${played}'`)

  await controller.stop()
  console.log('sabaki analyze ok')
}

main().catch(err => fail(err.stack || err))

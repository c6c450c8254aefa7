// Reads an SGF from stdin with Sabaki's own parser (@sabaki/sgf, pinned by package-lock.json)
// and prints what Sabaki takes from it, as JSON: the root's size, komi, players, setup stones
// and side to move, and the main line's moves (the first child at every node), each as
// [colour, x, y] with -1 -1 for a pass, by sgf.parseVertex, and beside them (`sbkv`) each
// move node's SBKV win rate as Sabaki reads it (a number, or null).
const sgf = require('@sabaki/sgf')
let text = ''
process.stdin.on('data', d => (text += d))
process.stdin.on('end', () => {
  const roots = sgf.parse(text)
  const root = roots[0]
  const data = root.data
  const one = key => (data[key] ? data[key][0] : null)
  const stones = key =>
    (data[key] || []).flatMap(v => sgf.parseCompressedVertices(v)).map(([x, y]) => [x, y])
  const moves = []
  const sbkv = []
  let node = root
  for (;;) {
    for (const colour of ['B', 'W']) {
      if (node.data[colour]) {
        const v = node.data[colour][0]
        const [x, y] = v === '' ? [-1, -1] : sgf.parseVertex(v)
        moves.push([colour, x, y])
        sbkv.push(node.data.SBKV ? parseFloat(node.data.SBKV[0]) : null)
      }
    }
    if (node.children.length === 0) break
    node = node.children[0]
  }
  console.log(
    JSON.stringify({
      size: one('SZ'),
      komi: one('KM'),
      black: one('PB'),
      white: one('PW'),
      pl: one('PL'),
      ab: stones('AB'),
      aw: stones('AW'),
      moves,
      sbkv,
    })
  )
})

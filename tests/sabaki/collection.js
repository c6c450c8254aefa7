// Reads an SGF collection from stdin with Sabaki's own parser (@sabaki/sgf, pinned by
// package-lock.json) and prints, as JSON, one entry per game tree: its players and the number of
// moves (B or W properties) on its main line (the first child at every node).
const sgf = require('@sabaki/sgf')
let text = ''
process.stdin.on('data', d => (text += d))
process.stdin.on('end', () => {
  const games = sgf.parse(text).map(root => {
    let moves = 0
    let node = root
    for (;;) {
      moves += ['B', 'W'].filter(colour => node.data[colour]).length
      if (node.children.length === 0) break
      node = node.children[0]
    }
    const one = key => (root.data[key] ? root.data[key][0] : null)
    return { black: one('PB'), white: one('PW'), moves }
  })
  console.log(JSON.stringify(games))
})

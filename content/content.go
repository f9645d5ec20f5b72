// Package content embeds aula's demo lessons and help articles; `aula seed`
// imports them through the same importer as `aula content import DIR`.
package content

import "embed"

// FS holds lessons/ and help/.
//
//go:embed lessons help
var FS embed.FS

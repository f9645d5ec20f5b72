package models

import (
	"context"

	"gorm.io/gorm"
)

// txKey marks the transaction a context carries.
type txKey struct{}

// WithTx runs fn in one transaction: every store method called with the
// context fn receives runs inside it, so a multi-step write spanning
// several stores commits or rolls back as one. A WithTx inside another
// joins the outer transaction. This is the only way aula passes a
// transaction; stores never take a *gorm.DB argument or build each other.
func WithTx(ctx context.Context, db *gorm.DB, fn func(ctx context.Context) error) error {
	if _, ok := ctx.Value(txKey{}).(*gorm.DB); ok {
		return fn(ctx)
	}
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return fn(context.WithValue(ctx, txKey{}, tx))
	})
}

// conn is how a store reaches the database: the transaction ctx carries
// (see WithTx), or db bound to ctx.
func conn(ctx context.Context, db *gorm.DB) *gorm.DB {
	if tx, ok := ctx.Value(txKey{}).(*gorm.DB); ok {
		return tx
	}
	return db.WithContext(ctx)
}

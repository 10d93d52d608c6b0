/* acquire-in-branch: fs/crypto/keysetup.c in 6.12: the barrier in an if
 * inside list_for_each_entry_rcu(), whose condition calls a helper and
 * holds no marked load: reported, low. */
static struct fscrypt_prepared_key *
find_mode_prepared_key(struct fscrypt_inode_info *ci,
		       const struct fscrypt_master_key *mk,
		       size_t hkdf_context, u8 mode_num)
{
	struct fscrypt_mode_key_node *node;

	guard(rcu)();
	list_for_each_entry_rcu(node, &mk->mk_mode_keys, link) {
		if (node->hkdf_context == hkdf_context &&
		    node->mode_num == mode_num &&
		    node->data_unit_bits == ci->ci_data_unit_bits &&
		    fscrypt_is_key_prepared(&node->key, ci)) {
			smp_acquire__after_ctrl_dep();
			return &node->key;
		}
	}
	return NULL;
}

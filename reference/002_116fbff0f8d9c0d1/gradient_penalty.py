import scalargrad as torch
# Reference program: 002_116fbff0f8d9c0d1.txt, "예제 3: GAN 학습 - Gradient
# Penalty" (GradientPenaltyHook), exactly as the document has it, including
# the `...` placeholder the document leaves for the images.


class GradientPenaltyHook(torch.autograd.Function):
    @staticmethod
    def forward(ctx, real_images, fake_images):
        return real_images, fake_images

    @staticmethod
    def backward(ctx, grad_outputs):
        real_images, fake_images = ctx.saved_tensors
        lambda_ = 10.0
        gradients = torch.cat((real_images.grad, fake_images.grad), dim=0)
        penalty = lambda_ * ((gradients.norm(2, dim=1) - 1)**2).mean()
        penalty.backward()
        return None, None


# 훅 등록
gradient_penalty_hook = GradientPenaltyHook()

# GAN 학습 코드 ...

# 훈련 루프에서 훅 사용
real_images, fake_images = ...
_, _ = gradient_penalty_hook(real_images, fake_images)
